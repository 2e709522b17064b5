"""The error an adapter raises when its framework (the package's extra) is not installed."""


def needs(extra: str, module: str) -> ImportError:
    return ImportError(f'{module} needs its framework: pip install "engram-client[{extra}]"')
