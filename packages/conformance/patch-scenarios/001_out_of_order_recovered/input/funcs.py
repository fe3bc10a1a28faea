def alpha():
    return 1

def beta():
    return 2

def gamma():
    return 3
