// A fake GitHub REST API for the publisher, as much of it as `zodex-agent github publish-pr` makes
// it call for acme/widgets: the repository (GET) and opening a pull request (POST, recorded with
// its Authorization header and body, answered as pull request number `firstNumber`, then the
// next). Anything else is 404. The caller listens and closes.

import http from 'node:http';

export interface PullRequest {
  authorization: string | undefined;
  body: { title: string; head: string; base: string; body?: string; draft?: boolean };
}

export function fakeGitHub(firstNumber = 1): { server: http.Server; pulls: PullRequest[] } {
  const pulls: PullRequest[] = [];
  const server = http.createServer((req, res) => {
    let text = '';
    req.on('data', (chunk: Buffer) => (text += chunk.toString()));
    req.on('end', () => {
      const send = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      if (req.method === 'GET' && req.url === '/repos/acme/widgets') return send(200, { full_name: 'acme/widgets', default_branch: 'main' });
      if (req.method === 'POST' && req.url === '/repos/acme/widgets/pulls') {
        pulls.push({ authorization: req.headers.authorization, body: JSON.parse(text) as PullRequest['body'] });
        const number = firstNumber + pulls.length - 1;
        return send(201, { number, html_url: `https://github.example/acme/widgets/pull/${number}` });
      }
      send(404, { message: 'Not Found' });
    });
  });
  return { server, pulls };
}
