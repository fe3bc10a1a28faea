if ready:
    start()
else:
    wait()
if ready:
    start()
