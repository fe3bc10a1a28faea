def f():
	if x:
        return 3
	return 2
