"""Imports every op family, which fills registry.OPS (the generator imports this module)."""
import ops_elementwise  # noqa: F401
import ops_index  # noqa: F401
import ops_inplace  # noqa: F401
import ops_linalg  # noqa: F401
import ops_loss  # noqa: F401
import ops_misc  # noqa: F401
import ops_nn  # noqa: F401
import ops_reduce  # noqa: F401
import ops_shape  # noqa: F401
