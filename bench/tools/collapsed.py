"""async-profiler's collapsed stacks: a line a stack, its frames apart by ';', then a space and its number
(samples, or bytes for an allocation profile dumped with `total`)."""


def read(path):
    """(stack, number) for each line of the file; a line that does not end in a number is passed over."""
    with open(path) as f:
        for line in f:
            stack, _, n = line.rstrip("\n").rpartition(" ")
            if n.isdigit():
                yield stack, int(n)
