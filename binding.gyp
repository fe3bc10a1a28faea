{
  "targets": [
    {
      "target_name": "zodex-spawn",
      "type": "executable",
      "sources": ["native/zodex-spawn.c"],
      "cflags": ["-O2", "-Wall", "-Wextra"]
    }
  ]
}
