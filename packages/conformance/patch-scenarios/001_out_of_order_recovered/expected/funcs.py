def alpha():
    return 10

def beta():
    return 2

def gamma():
    return 30
