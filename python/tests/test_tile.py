"""Tests of the tile Python package on the CPU target with NumPy.

Run against an installed package (utils/check-install.sh does):
    PYTHONPATH=<prefix>/lib/python3/site-packages python3 -m unittest \
        discover -s python/tests -v
Numeric results are checked on random inputs, outputs poisoned beforehand,
against NumPy with a stated tolerance.
"""

import os
import tempfile
import threading
import unittest
from pathlib import Path

import numpy as np

import tile

EXAMPLES = Path(os.environ.get("TILE_SOURCE_DIR",
                               Path(__file__).resolve().parents[2])) / "examples"

SCALE = """func @scale(%X: f32[M, N], %Y: f32[M, N], %a: f32, %n: i32) {
  kernel grid(M) threads(128) (%bx) {
    %x = alloc fragment f32[1, 512]
    for %t in serial(0, ceildiv(N, 512)) {
      copy %X[%bx, %t * 512] -> %x
      for %i, %j in parallel(1, 512) {
        %x[%i, %j] = %a * %x[%i, %j] + cast<f32>(%n)
      }
      copy %x -> %Y[%bx, %t * 512]
    }
  }
}
"""


# X declares its strides (rows S apart); Y is row-major.
STRIDED_COPY = """func @copy(%X: f32[M, N] strides(S, 1), %Y: f32[M, N]) {
  kernel grid(M) threads(32) (%bx) {
    %x = alloc fragment f32[1, 64]
    copy %X[%bx, 0] -> %x
    copy %x -> %Y[%bx, 0]
  }
}
"""

# Scalars before and between tensors.
AXPB = """func @axpb(%a: f32, %X: f32[N], %n: i32, %Y: f32[N]) {
  kernel grid(ceildiv(N, 256)) threads(64) (%bx) {
    %x = alloc fragment f32[256]
    copy %X[%bx * 256] -> %x
    for %i in parallel(256) {
      %x[%i] = %a * %x[%i] + cast<f32>(%n)
    }
    copy %x -> %Y[%bx * 256]
  }
}
"""


class TileCPUTest(unittest.TestCase):
    rng = np.random.default_rng(1)

    def test_version(self):
        self.assertTrue(tile.version().startswith("0.1.0"), tile.version())

    def test_elementwise_add(self):
        add = tile.compile(EXAMPLES / "elementwise_add.tile", target="cpu")
        a = self.rng.standard_normal(5000).astype(np.float32)
        b = self.rng.standard_normal(5000).astype(np.float32)
        c = np.full_like(a, np.nan)
        add(a, b, c)
        np.testing.assert_array_equal(c, a + b)
        # By name, in any order.
        c[:] = np.nan
        add(C=c, B=b, A=a)
        np.testing.assert_array_equal(c, a + b)

    def test_gemm_f16(self):
        gemm = tile.compile(str(EXAMPLES / "gemm.tile"), target="cpu",
                            entry="gemm")
        m, n, k = 130, 200, 70  # not multiples of the 128x128x32 tiles
        a = self.rng.uniform(-1, 1, (m, k)).astype(np.float16)
        b = self.rng.uniform(-1, 1, (k, n)).astype(np.float16)
        c = np.full((m, n), np.nan, dtype=np.float16)
        gemm(a, b, c)
        want = a.astype(np.float64) @ b.astype(np.float64)
        # f32 accumulation, one f16 rounding of the result.
        np.testing.assert_allclose(c.astype(np.float64), want, rtol=2e-3,
                                   atol=2e-3)

    def test_rmsnorm_with_a_float_scalar(self):
        rms = tile.compile(EXAMPLES / "rmsnorm.tile", target="cpu")
        x = self.rng.uniform(-2, 2, (3, 1500)).astype(np.float16)
        w = self.rng.uniform(0.5, 1.5, 1500).astype(np.float16)
        y = np.full_like(x, np.nan)
        rms(x, w, y, 1e-5)
        x64 = x.astype(np.float64)
        want = x64 / np.sqrt((x64 * x64).mean(axis=1, keepdims=True) + 1e-5) \
            * w.astype(np.float64)
        np.testing.assert_allclose(y.astype(np.float64), want, rtol=4e-3,
                                   atol=4e-3)

    def test_source_text_with_scalars(self):
        scale = tile.compile(SCALE, target="cpu")
        x = self.rng.standard_normal((3, 1000)).astype(np.float32)
        y = np.full_like(x, np.nan)
        want = 0.5 * x.astype(np.float64) + 3
        scale(x, y, 0.5, np.int32(3))
        np.testing.assert_allclose(y, want, rtol=1e-6, atol=1e-6)

    def test_kernels_are_reused(self):
        first = tile.compile(SCALE, target="cpu")
        self.assertIs(tile.compile(SCALE, target="cpu"), first)
        self.assertIsNot(tile.compile(SCALE, target="cpu", exec_backend="orc"),
                         first)

    def test_threads_share_a_kernel(self):
        # Launches from several threads each keep their own arguments.
        scale = tile.compile(SCALE, target="cpu")
        rng = np.random.default_rng(5)
        xs = [rng.standard_normal((2, 600)).astype(np.float32)
              for _ in range(4)]
        ys = [np.full_like(x, np.nan) for x in xs]
        errors = []

        def work(t):
            try:
                for k in range(40):
                    scale(xs[t], ys[t], float(t), k)
                    np.testing.assert_allclose(
                        ys[t], t * xs[t].astype(np.float64) + k, rtol=1e-6,
                        atol=1e-5)
            except Exception as e:  # reported below
                errors.append(e)

        threads = [threading.Thread(target=work, args=(t,)) for t in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(errors, [])

    def test_no_parameters(self):
        noop = tile.compile("func @f() {\n  kernel grid(1) threads(32) (%bx) {"
                            "\n  }\n}\n", target="cpu")
        noop()
        with self.assertRaisesRegex(TypeError,
                                    r"^@f takes 0 arguments \(\), got 1$"):
            noop(1)

    def test_save_and_load(self):
        add = tile.compile(EXAMPLES / "elementwise_add.tile", target="cpu")
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "add.tart")
            add.save(path)
            loaded = tile.load(path)
            with self.assertRaisesRegex(
                    tile.TargetError, "^no entry point 'mul' in '.*add.tart'; "
                    "it has: add$"):
                tile.load(path, entry="mul")
        self.assertEqual(loaded.name, "add")
        a = np.arange(3000, dtype=np.float32)
        c = np.full_like(a, np.nan)
        loaded(a, a, c)
        np.testing.assert_array_equal(c, 2 * a)


class FakeTorch:
    """What the launcher's torch path (tile/_launch.py, tile/_torch.py)
    reads of torch, over NumPy arrays, so that the path runs here without
    torch."""
    float16, float32, float64, bfloat16, bool = "f16", "f32", "f64", "bf16", "b"
    int8, int16, int32, int64, uint8 = "i8", "i16", "i32", "i64", "u8"

    class Tensor:
        dlpack_calls = 0

        def __init__(self, arr):
            self.arr = arr
            self.dtype = {np.dtype(np.float32): "f32",
                          np.dtype(np.float64): "f64",
                          np.dtype(np.complex64): "c64"}[arr.dtype]
            self.shape = arr.shape
            self.is_cpu, self.is_cuda = True, False

        def get_device(self):
            return -1

        def data_ptr(self):
            return self.arr.ctypes.data

        def stride(self):
            return tuple(s // self.arr.itemsize for s in self.arr.strides)

        def is_contiguous(self):
            return self.arr.flags.c_contiguous

        def __dlpack__(self):  # for what the direct path leaves
            FakeTorch.Tensor.dlpack_calls += 1
            return self.arr.__dlpack__()


T = FakeTorch.Tensor


class TorchPathTest(unittest.TestCase):
    rng = np.random.default_rng(2)

    def setUp(self):
        tile._set_torch_info(tile._torch.TorchInfo(FakeTorch))
        self.add = tile.compile(EXAMPLES / "elementwise_add.tile", target="cpu")
        T.dlpack_calls = 0

    def tearDown(self):
        tile._set_torch_info(None)

    def test_fills_the_dltensor(self):
        a = self.rng.standard_normal(2000).astype(np.float32)
        b = self.rng.standard_normal(2000).astype(np.float32)
        c = np.full_like(a, np.nan)
        self.add(T(a), T(b), T(c))
        np.testing.assert_array_equal(c, a + b)
        # Written anew on every launch: other tensors, another length.
        a2, c2 = a[:1500].copy(), np.full(1500, np.nan, np.float32)
        self.add(T(a2), T(a2), T(c2))
        np.testing.assert_array_equal(c2, 2 * a2)
        self.assertEqual(T.dlpack_calls, 0)

    def test_scalars_and_names(self):
        scale = tile.compile(SCALE, target="cpu")
        x = self.rng.standard_normal((3, 1000)).astype(np.float32)
        y = np.full_like(x, np.nan)
        scale(T(x), T(y), 0.5, 3)
        np.testing.assert_allclose(y, 0.5 * x.astype(np.float64) + 3,
                                   rtol=1e-6, atol=1e-6)
        y[:] = np.nan
        scale(n=np.int64(-1), a=2, Y=T(y), X=T(x))  # converted numbers
        np.testing.assert_allclose(y, 2 * x.astype(np.float64) - 1,
                                   rtol=1e-6, atol=1e-6)
        self.assertEqual(T.dlpack_calls, 0)

    def test_mixed_with_numpy(self):
        a = self.rng.standard_normal(700).astype(np.float32)
        c = np.full_like(a, np.nan)
        self.add(T(a), a, T(c))
        np.testing.assert_array_equal(c, 2 * a)

    def test_the_entry_point_still_checks(self):
        a = np.zeros(100, dtype=np.float32)
        with self.assertRaisesRegex(
                tile.ArgumentError,
                r"^argument 'B' \(#1\): expected dtype f32 \(DLPack f32\), "
                r"got f64$"):
            self.add(T(a), T(a.astype(np.float64)), T(a))
        with self.assertRaisesRegex(
                tile.ArgumentError,
                r"^argument 'A' \(#0\) stride of dimension 0 is 2, expected 1 "):
            self.add(T(np.zeros(200, np.float32)[::2]), T(a), T(a))
        with self.assertRaisesRegex(
                tile.ArgumentError,
                r"^argument 'B' \(#1\) dimension 0 \(N\) is 99, but argument "
                r"'A' \(#0\) dimension 0 set N = 100$"):
            self.add(T(a), T(a[:99].copy()), T(a))
        self.assertEqual(T.dlpack_calls, 0)
        # A rank the parameter does not have, or a dtype the table lacks,
        # goes through __dlpack__; the entry point refuses it.
        with self.assertRaisesRegex(
                tile.ArgumentError,
                r"^argument 'C' \(#2\): expected a tensor of rank 1, got rank 2$"):
            self.add(T(a), T(a), T(a.reshape(10, 10)))
        with self.assertRaisesRegex(
                tile.ArgumentError,
                r"^argument 'A' \(#0\): expected dtype f32 \(DLPack f32\), "
                r"got code 5 bits 64$"):
            self.add(T(a.astype(np.complex64)), T(a), T(a))
        self.assertEqual(T.dlpack_calls, 2)

    def test_other_devices_go_through_dlpack(self):
        a = np.zeros(100, dtype=np.float32)
        gpu = T(a)
        gpu.is_cpu, gpu.is_cuda = False, True
        # Not read directly: __dlpack__ says where it is (here NumPy: the
        # CPU, so it runs); the executor's device is what the test asks.
        self.add(T(a), gpu, T(a))
        self.assertEqual(T.dlpack_calls, 1)

    def test_declared_strides_are_read(self):
        # X declares its strides: the launcher gives stride() for it (a
        # padded row here), and NULL strides for the contiguous Y.
        copy = tile.compile(STRIDED_COPY, target="cpu")
        source = copy._run.source
        self.assertIn("a0.stride()", source)
        self.assertNotIn("a0.is_contiguous()", source)
        self.assertIn("a1.is_contiguous()", source)
        padded = self.rng.standard_normal((5, 48)).astype(np.float32)
        x = padded[:, :40]
        y = np.full((5, 40), np.nan, np.float32)
        copy(T(x), T(y))
        np.testing.assert_array_equal(y, x)
        self.assertEqual(T.dlpack_calls, 0)
        # A strided Y takes the general path, whose strides the entry
        # point refuses by name.
        with self.assertRaisesRegex(
                tile.ArgumentError,
                r"^argument 'Y' \(#1\) stride of dimension 0 is 48, "
                r"expected 40 "):
            copy(T(x), T(padded[:, :40]))
        self.assertEqual(T.dlpack_calls, 0)

    def test_scalars_among_tensors(self):
        # The direct path writes the scalars' TileArgs and the DLTensors
        # after them in one run of the buffer.
        axpb = tile.compile(AXPB, target="cpu")
        x = self.rng.standard_normal(3000).astype(np.float32)
        y = np.full_like(x, np.nan)
        axpb(0.25, T(x), -2, T(y))
        np.testing.assert_allclose(y, 0.25 * x.astype(np.float64) - 2,
                                   rtol=1e-6, atol=1e-6)
        y[:] = np.nan
        axpb(2.0, T(x), 7, T(y))
        np.testing.assert_allclose(y, 2 * x.astype(np.float64) + 7,
                                   rtol=1e-6, atol=1e-6)
        self.assertEqual(T.dlpack_calls, 0)
        with self.assertRaisesRegex(
                ValueError, r"^argument 'n' \(#2\): 4294967296 is out of "
                r"range for a i32 scalar"):
            axpb(1.0, T(x), 1 << 32, T(y))

    def test_each_measure_of_the_launcher_taken_back(self):
        # Packs split into many pack_into calls, and stride() instead of
        # NULL strides, give the same results.
        scale = tile.compile(SCALE, target="cpu")
        x = self.rng.standard_normal((3, 700)).astype(np.float32)
        a = self.rng.standard_normal(900).astype(np.float32)
        for attr, value, marker in [("MAX_PACK_VALUES", 4, "pd1("),
                                    ("NULL_STRIDES", False, "a0.stride()")]:
            saved = getattr(tile._launch, attr)
            setattr(tile._launch, attr, value)
            try:
                tile._set_torch_info(tile._torch.TorchInfo(FakeTorch))
                self.assertIn(marker, self.add._run.source)
                c = np.full_like(a, np.nan)
                self.add(T(a), T(a), T(c))
                np.testing.assert_array_equal(c, 2 * a)
                y = np.full_like(x, np.nan)
                scale(T(x), T(y), 1.5, -4)
                np.testing.assert_allclose(y, 1.5 * x.astype(np.float64) - 4,
                                           rtol=1e-6, atol=1e-5)
            finally:
                setattr(tile._launch, attr, saved)
        self.assertEqual(T.dlpack_calls, 0)


try:
    import torch
except ImportError:
    torch = None


@unittest.skipUnless(torch, "needs torch (CPU tensors on the CPU target)")
class RealTorchTest(unittest.TestCase):
    """torch CPU tensors on the CPU target, read by the launcher directly."""

    def setUp(self):
        tile._set_torch_info(None)
        self.add = tile.compile(EXAMPLES / "elementwise_add.tile", target="cpu")
        tile._set_torch_info(tile._torch.TorchInfo(torch))

    def test_add_and_checks(self):
        g = torch.Generator().manual_seed(3)
        a, b = torch.randn(3000, generator=g), torch.randn(3000, generator=g)
        c = torch.full_like(a, float("nan"))
        self.add(a, b, c)
        self.assertTrue(torch.equal(c, a + b))
        # A view with an offset: data_ptr() is where it starts.
        c2 = torch.full_like(a, float("nan"))
        self.add(a[1000:2000], b[1000:2000], c2[:1000])
        self.assertTrue(torch.equal(c2[:1000], a[1000:2000] + b[1000:2000]))
        with self.assertRaisesRegex(
                tile.ArgumentError,
                r"^argument 'B' \(#1\): expected dtype f32 \(DLPack f32\), "
                r"got f16$"):
            self.add(a, b.half(), c)
        with self.assertRaisesRegex(
                tile.ArgumentError,
                r"^argument 'C' \(#2\) dimension 0 \(N\) is 2999, but "):
            self.add(a, b, c[:2999])
        with self.assertRaisesRegex(
                tile.ArgumentError,
                r"^argument 'A' \(#0\) stride of dimension 0 is 2, "):
            self.add(torch.zeros(6000)[::2], b, c)
        with self.assertRaisesRegex(
                tile.ArgumentError,
                r"^argument 'A' \(#0\): expected a tensor of rank 1, got "
                r"rank 2$"):
            self.add(a.view(30, 100), b, c)
        with self.assertRaisesRegex(
                tile.ArgumentError,
                r"^argument 'A' \(#0\): expected dtype f32 \(DLPack f32\), "
                r"got .*$"):
            self.add(torch.zeros(3000, dtype=torch.complex64), b, c)


class TileErrorTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.add = tile.compile(EXAMPLES / "elementwise_add.tile", target="cpu")
        cls.a = np.zeros(100, dtype=np.float32)

    def test_source_error_is_located(self):
        bad = "func @f(%A: f32[N]) {\n  kernel grid(1) threads(32) (%bx) {\n" \
              "    copy %B -> %A\n  }\n}\n"
        with self.assertRaises(tile.SourceError) as cm:
            tile.compile(bad, target="cpu")
        self.assertRegex(cm.exception.message, r"^<string>:3:10: error: ")
        self.assertIn("    copy %B -> %A\n", cm.exception.message)

    def test_missing_file(self):
        with self.assertRaisesRegex(tile.ExecutionError,
                                    "^cannot read 'no/such.tile': "):
            tile.compile("no/such.tile")

    def test_unknown_target(self):
        with self.assertRaisesRegex(tile.TargetError, "tpu"):
            tile.compile(EXAMPLES / "elementwise_add.tile", target="tpu")

    def test_unknown_entry(self):
        with self.assertRaisesRegex(
                tile.TargetError,
                r"^no function '@mul' in the module; it has: @add$"):
            tile.compile(EXAMPLES / "elementwise_add.tile", entry="mul")

    def test_wrong_dtype(self):
        with self.assertRaisesRegex(
                tile.ArgumentError,
                r"^argument 'B' \(#1\): expected dtype f32 \(DLPack f32\), "
                r"got f64$"):
            self.add(self.a, self.a.astype(np.float64), self.a)

    def test_wrong_rank(self):
        with self.assertRaisesRegex(
                tile.ArgumentError,
                r"^argument 'C' \(#2\): expected a tensor of rank 1, got rank 2$"):
            self.add(self.a, self.a, self.a.reshape(10, 10))

    def test_non_contiguous(self):
        b = np.zeros(200, dtype=np.float32)[::2]
        with self.assertRaisesRegex(
                tile.ArgumentError,
                r"^argument 'B' \(#1\) stride of dimension 0 is 2, expected 1 "
                r"\(row-major; pass a contiguous tensor\)$"):
            self.add(self.a, b, self.a)

    def test_shape_mismatch(self):
        with self.assertRaisesRegex(
                tile.ArgumentError,
                r"^argument 'B' \(#1\) dimension 0 \(N\) is 99, but argument "
                r"'A' \(#0\) dimension 0 set N = 100$"):
            self.add(self.a, self.a[:99].copy(), self.a)

    def test_missing_argument(self):
        with self.assertRaisesRegex(
                TypeError,
                r"^missing argument 'C' \(#2\) of @add: a f32 tensor of rank 1$"):
            self.add(self.a, self.a)

    def test_too_many_and_unknown_arguments(self):
        with self.assertRaisesRegex(TypeError, r"^@add takes 3 arguments "
                                    r"\(A, B, C\), got 4$"):
            self.add(self.a, self.a, self.a, self.a)
        with self.assertRaisesRegex(TypeError, r"^@add has no parameter 'D'"):
            self.add(self.a, self.a, D=self.a)
        with self.assertRaisesRegex(TypeError,
                                    r"^argument 'A' of @add is given twice$"):
            self.add(self.a, self.a, A=self.a)

    def test_not_a_tensor(self):
        with self.assertRaisesRegex(
                TypeError, r"^argument 'A' \(#0\): expected a f32 tensor of "
                r"rank 1 exporting __dlpack__ .*got list$"):
            self.add([1.0, 2.0], self.a, self.a)

    def test_read_only_array(self):
        ro = np.zeros(100, dtype=np.float32)
        ro.flags.writeable = False
        with self.assertRaisesRegex(
                TypeError, r"^argument 'A' \(#0\): cannot be passed through "
                r"DLPack: "):
            self.add(ro, self.a, self.a)

    def test_bad_scalars(self):
        scale = tile.compile(SCALE, target="cpu")
        x = np.zeros((1, 10), dtype=np.float32)
        with self.assertRaisesRegex(
                TypeError, r"^argument 'a' \(#2\): expected a Python number "
                r"for a f32 scalar, got str$"):
            scale(x, x, "0.5", 1)
        with self.assertRaisesRegex(
                TypeError, r"^argument 'n' \(#3\): expected a Python int for "
                r"a i32 scalar, got float$"):
            scale(x, x, 0.5, 1.5)
        with self.assertRaisesRegex(
                ValueError, r"^argument 'n' \(#3\): 2147483648 is out of range "
                r"for a i32 scalar \(\[-2147483648, 2147483647\]\)$"):
            scale(x, x, 0.5, 2 ** 31)


if __name__ == "__main__":
    unittest.main()
