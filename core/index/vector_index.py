"""placeholder"""


class IndexMeta: ...


class VectorIndex: ...
