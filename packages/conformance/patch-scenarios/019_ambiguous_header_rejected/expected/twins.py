class A:
    def m(self):
        x = 1

class B:
    def m(self):
        x = 1
