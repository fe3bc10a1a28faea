{
  "targets": [
    {
      "target_name": "zodex-spawn",
      "type": "executable",
      "sources": ["native/zodex-spawn.c"],
      "cflags": ["-O2", "-Wall", "-Wextra"]
    },
    {
      "target_name": "zodex_native",
      "sources": ["native/zodex-native.c"],
      "cflags": ["-O2", "-Wall", "-Wextra"]
    }
  ]
}
