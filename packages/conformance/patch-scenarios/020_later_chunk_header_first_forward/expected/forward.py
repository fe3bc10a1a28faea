class A:
    name = "A"
    def __init__(self):
        self.v = 2

class B:
    name = "b"
    def __init__(self):
        self.v = 1
