class A:
    name = "a"
    def __init__(self):
        self.v = 1

class B:
    name = "b"
    def __init__(self):
        self.v = 1
