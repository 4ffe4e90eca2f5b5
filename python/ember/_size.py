class Size(tuple):
    """The shape of a tensor: a tuple of ints, printed as ``ember.Size([2, 3])``.

    ``Tensor.shape`` and ``Tensor.size()`` return one; slicing one gives a Size, and so does adding a tuple to it.

    Example::

        >>> s = ember.zeros(2, 3).shape
        >>> s, s.numel(), s[1:]
        (ember.Size([2, 3]), 6, ember.Size([3]))
    """

    __slots__ = ()

    def __repr__(self):
        return f"ember.Size({list(self)})"

    def numel(self):
        """Returns the number of elements of a tensor of this shape: the product of the sizes (1 for ``Size([])``)."""
        n = 1
        for s in self:
            n *= s
        return n

    def __getitem__(self, key):
        r = tuple.__getitem__(self, key)
        return Size(r) if isinstance(key, slice) else r

    def __add__(self, other):
        return Size(tuple.__add__(self, tuple(other)))

    def __reduce__(self):
        return (Size, (tuple(self),))
