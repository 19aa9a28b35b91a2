def register(ipython):
    pass
