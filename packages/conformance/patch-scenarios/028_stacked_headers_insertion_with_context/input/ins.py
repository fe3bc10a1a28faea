class A:
    def m(self):
        pass
class B:
    def m(self):
        pass
