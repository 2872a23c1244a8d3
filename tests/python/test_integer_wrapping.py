"""Integer powers wrap around as PyTorch's do (two's complement, modulo 2^bits), where C++'s signed
overflow would be undefined behaviour (the sanitizer build found it); NumPy is the oracle."""
import numpy as np
import pytest

import ember


@pytest.mark.parametrize("dtype,np_dtype", [(ember.int32, np.int32), (ember.int64, np.int64),
                                            (ember.uint8, np.uint8)])  # int16: a storage type
def test_integer_pow_wraps_like_numpy(dtype, np_dtype):
    base = np.array([65025, 65536, -46341, 3, 0, 1, 255], dtype=np.int64).astype(np_dtype)
    with np.errstate(over="ignore"):
        for e in (2, 3, 5, 7):
            want = base ** np.array(e, dtype=np_dtype)
            got = ember.tensor(base, dtype=dtype).pow(e)
            np.testing.assert_array_equal(got.numpy(), want, err_msg=f"exponent {e}")
            got_t = ember.tensor(base, dtype=dtype).pow(ember.full((7,), e, dtype=dtype))
            np.testing.assert_array_equal(got_t.numpy(), want, err_msg=f"tensor exponent {e}")
