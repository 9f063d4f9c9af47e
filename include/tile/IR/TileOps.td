//===- TileOps.td - The common tile ops ---------------------*- tablegen -*-===//
//
// The ops of the common, backend-neutral language. Every backend lowers
// them (or rejects them early, naming the op and the target).
//
//===----------------------------------------------------------------------===//

include "tile/IR/OpBase.td"

def TileDialect : Dialect<"tile"> {
  let Summary = "The common tile language";
  let CppPrefix = "Tile";
  let RegisterFn = "registerCommonOps";
}

class TileOp<string mnemonic> : Op<TileDialect, mnemonic>;

def CopyOp : TileOp<"copy"> {
  let Summary = "Copy a region between any two scopes, casting on the way";
  let Description = [{
    Copies `src` to `dst` element by element, converting to the destination
    dtype. Regions without explicit extents take their extents from the other
    operand (right-aligned; leading dimensions get extent 1). Elements of a
    global buffer outside its shape read as zero and are not written.
  }];
  let Example = "copy %A[%by * 128, %k * 32] -> %As";
  let Arguments = (ins Region:$src, Region:$dst);
  let Format = "$src `->` $dst attr-dict";
  let Writes = ["dst"];
  let Verifier = "verifyCopyOp";
}

def GemmOp : TileOp<"gemm"> {
  let Summary = "Tile matrix multiply-accumulate: C += op(A) * op(B)";
  let Description = [{
    `A` and `B` come from shared memory or fragments, `C` is a fragment.
    With transpose_a, A is stored [K, M]; with transpose_b, B is stored
    [N, K]. clear_accum zeroes C first. policy says how the block's warps
    split C (square, full_row, full_col).
  }];
  let Example = "gemm %As, %Bs -> %Cf {transpose_b = true}";
  let Arguments = (ins Region:$a, Region:$b, Region:$c,
                   BoolAttr<"false", "A is stored transposed ([K, M])">:$transpose_a,
                   BoolAttr<"false", "B is stored transposed ([N, K])">:$transpose_b,
                   EnumAttr<["square", "full_row", "full_col"], "square",
                            "how warps partition C">:$policy,
                   BoolAttr<"false", "zero C before accumulating">:$clear_accum);
  let Format = "$a `,` $b `->` $c attr-dict";
  let Writes = ["c"];
  let Verifier = "verifyGemmOp";
}

def FillOp : TileOp<"fill"> {
  let Summary = "Set every element of a region to a value";
  let Example = "fill %M, -inf<f32>()";
  let Arguments = (ins Region:$dst, Expr:$value);
  let Format = "$dst `,` $value attr-dict";
  let Writes = ["dst"];
  let Verifier = "verifyFillOp";
}

def ClearOp : TileOp<"clear"> {
  let Summary = "Set every element of a region to zero";
  let Example = "clear %Cf";
  let Arguments = (ins Region:$dst);
  let Format = "$dst attr-dict";
  let Writes = ["dst"];
  let Verifier = "verifyClearOp";
}

def ReduceOp : TileOp<"reduce"> {
  let Summary = "Reduce a tile along one dimension";
  let Description = [{
    dst has the shape of src with dimension `dim` removed. With clear (the
    default) dst is overwritten; otherwise the reduction is combined with
    dst's current value.
  }];
  let Example = "reduce max %S -> %rowmax {dim = 1}";
  let Arguments = (ins Region:$src, Region:$dst,
                   EnumAttr<["sum", "max", "min", "abssum", "absmax"], "",
                            "the combining function">:$kind,
                   IntAttr<"", "the reduced dimension">:$dim,
                   BoolAttr<"true", "overwrite dst instead of accumulating">:$clear);
  let Format = "$kind $src `->` $dst attr-dict";
  let Writes = ["dst"];
  let Verifier = "verifyReduceOp";
}

def CumsumOp : TileOp<"cumsum"> {
  let Summary = "Inclusive prefix sum along one dimension";
  let Example = "cumsum %X -> %Y {dim = 1}";
  let Arguments = (ins Region:$src, Region:$dst,
                   IntAttr<"0", "the scanned dimension">:$dim,
                   BoolAttr<"false", "scan from the end">:$reverse);
  let Format = "$src `->` $dst attr-dict";
  let Writes = ["dst"];
  let Verifier = "verifyCumsumOp";
}

def AtomicOp : TileOp<"atomic"> {
  let Summary = "Atomically combine a tile into a region";
  let Description = [{
    For every element, dst = kind(dst, src) as one atomic read-modify-write.
    Regions follow the rules of copy.
  }];
  let Example = "atomic add %Cf -> %C[%by * 128, %bx * 128]";
  let Arguments = (ins Region:$src, Region:$dst,
                   EnumAttr<["add", "max", "min"], "", "the combining function">:$kind);
  let Format = "$kind $src `->` $dst attr-dict";
  let Writes = ["dst"];
  let Verifier = "verifyAtomicOp";
}

def AtomicElemOp : TileOp<"atomic_elem"> {
  let Summary = "Atomically combine a scalar into one element";
  let Example = "atomic_elem add %C[%i, %j], %v";
  let Arguments = (ins Region:$dst, Expr:$value,
                   EnumAttr<["add", "max", "min"], "", "the combining function">:$kind);
  let Format = "$kind $dst `,` $value attr-dict";
  let Writes = ["dst"];
  let Verifier = "verifyAtomicElemOp";
  let Elementwise = 1;
}

def BarrierOp : TileOp<"barrier"> {
  let Summary = "Block-wide barrier for hand-written per-thread code";
  let Example = "barrier";
  let Format = "attr-dict";
}
