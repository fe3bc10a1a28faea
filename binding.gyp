{
  "targets": [
    {
      "target_name": "zodex-spawn",
      "type": "executable",
      "sources": ["native/zodex-spawn.c", "native/spawn-io.c", "native/spawn-kill.c", "native/spawn-reporter.c", "native/spawn-standby.c", "native/spawn-zygote.c", "native/spawn-confine.c"],
      "cflags": ["-O2", "-Wall", "-Wextra"]
    },
    {
      "target_name": "zodex_native",
      "sources": ["native/zodex-native.c"],
      "cflags": ["-O2", "-Wall", "-Wextra"]
    }
  ]
}
