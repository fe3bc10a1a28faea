#!/bin/bash
P=${1:-7801}; U=http://127.0.0.1:$P/mcp
H=(-H content-type:application/json -H accept:application/json,text/event-stream)
M='"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"curl","version":"1"}}'
V=(-H 'MCP-Protocol-Version: 2026-07-28')
echo "--- discover"; curl -s -i "${H[@]}" "${V[@]}" -H 'Mcp-Method: server/discover' -d "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"server/discover\",\"params\":{$M}}" $U | grep -v '^Date\|^Connection\|^Keep\|^Transfer'; echo
echo "--- tools/list"; curl -s "${H[@]}" "${V[@]}" -H 'Mcp-Method: tools/list' -d "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\",\"params\":{$M}}" $U; echo
echo "--- call ok"; curl -s "${H[@]}" "${V[@]}" -H 'Mcp-Method: tools/call' -H 'Mcp-Name: echo' -d "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"text\":\"hi\"},$M}}" $U; echo
echo "--- call, Mcp-Name mismatch"; curl -s -i "${H[@]}" "${V[@]}" -H 'Mcp-Method: tools/call' -H 'Mcp-Name: nope' -d "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"text\":\"hi\"},$M}}" $U | sed -n '1p;$p'; echo
echo "--- call, no Mcp-Name"; curl -s -i "${H[@]}" "${V[@]}" -H 'Mcp-Method: tools/call' -d "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"text\":\"hi\"},$M}}" $U | sed -n '1p;$p'; echo
echo "--- call, no Mcp-Method"; curl -s -i "${H[@]}" "${V[@]}" -H 'Mcp-Name: echo' -d "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"text\":\"hi\"},$M}}" $U | sed -n '1p;$p'; echo
echo "--- call, no MCP-Protocol-Version header"; curl -s -i "${H[@]}" -H 'Mcp-Method: tools/call' -H 'Mcp-Name: echo' -d "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"text\":\"hi\"},$M}}" $U | sed -n '1p;$p'; echo
echo "--- header version 2025-11-25 vs body 2026"; curl -s -i "${H[@]}" -H 'MCP-Protocol-Version: 2025-11-25' -H 'Mcp-Method: tools/list' -d "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/list\",\"params\":{$M}}" $U | sed -n '1p;$p'; echo
echo "--- bad input"; curl -s "${H[@]}" "${V[@]}" -H 'Mcp-Method: tools/call' -H 'Mcp-Name: echo' -d "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"text\":5},$M}}" $U; echo
echo "--- unknown tool"; curl -s -i "${H[@]}" "${V[@]}" -H 'Mcp-Method: tools/call' -H 'Mcp-Name: zzz' -d "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"zzz\",\"arguments\":{},$M}}" $U | sed -n '1p;$p'; echo
echo "--- version 1900"; curl -s -i "${H[@]}" -H 'MCP-Protocol-Version: 1900-01-01' -H 'Mcp-Method: tools/list' -d '{"jsonrpc":"2.0","id":4,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"1900-01-01","io.modelcontextprotocol/clientCapabilities":{}}}}' $U | sed -n '1p;$p'; echo
echo "--- missing caps"; curl -s -i "${H[@]}" "${V[@]}" -H 'Mcp-Method: tools/list' -d '{"jsonrpc":"2.0","id":5,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}' $U | sed -n '1p;$p'; echo
echo "--- unknown method"; curl -s -i "${H[@]}" "${V[@]}" -H 'Mcp-Method: foo/bar' -d "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"foo/bar\",\"params\":{$M}}" $U | sed -n '1p;$p'; echo
echo "--- ping modern"; curl -s -i "${H[@]}" "${V[@]}" -H 'Mcp-Method: ping' -d "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"ping\",\"params\":{$M}}" $U | sed -n '1p;$p'; echo
echo "--- modern with Mcp-Session-Id header"; curl -s -i "${H[@]}" "${V[@]}" -H 'Mcp-Session-Id: abc' -H 'Mcp-Method: tools/list' -d "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\",\"params\":{$M}}" $U | sed -n '1p'; echo
echo "--- legacy initialize"; curl -s -i "${H[@]}" -d '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}' $U | grep -i 'mcp-session\|^HTTP\|data:\|^{'
echo "--- GET no session"; curl -s -i $U -H 'accept: text/event-stream' | head -1
