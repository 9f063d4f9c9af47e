//===- OpBase.td - Base classes for tile op declarations --*- tablegen -*-===//
//
// A dialect and its ops are declared with these classes. tile-tblgen
// -gen-op-defs turns them into a constant OpInfo table and a registration
// function; -gen-op-docs into reference documentation. Declarations are
// data only: semantic checks are C++ functions named by `Verifier`.
//
//===----------------------------------------------------------------------===//

/// A namespace of ops. The common language is dialect "tile", whose ops are
/// written without a prefix; other dialects' ops are written `name.op`.
class Dialect<string name> {
  string Name = name;
  string Summary = "";
  /// C++ identifier prefix for the generated enum (<Prefix>OpCode).
  string CppPrefix = "";
  /// Name of the generated `void F(tile::OpRegistry &)`.
  string RegisterFn = "";
}

/// Operand kinds, named in an op's `Arguments` dag.
class OperandKind<string kind> {
  string Kind = kind;
}
/// A buffer region: `%A`, `%A[%i, 0]`, `%A[%i : 64, 0 : 32]`.
def Region : OperandKind<"Region">;
/// A scalar expression.
def Expr : OperandKind<"Expr">;

/// Attribute kinds. An empty Default makes the attribute required.
class Attr<string kind, string default = "", string summary = ""> {
  string Kind = kind;
  string Default = default;
  string Summary = summary;
  list<string> Values = [];
}
class IntAttr<string default = "", string summary = "">
    : Attr<"Int", default, summary>;
class FloatAttr<string default = "", string summary = "">
    : Attr<"Float", default, summary>;
class BoolAttr<string default = "false", string summary = "">
    : Attr<"Bool", default, summary>;
class StrAttr<string default = "", string summary = "">
    : Attr<"String", default, summary>;
class IntListAttr<string default = "", string summary = "">
    : Attr<"IntList", default, summary>;
class AnyAttr<string default = "", string summary = "">
    : Attr<"Any", default, summary>;
class EnumAttr<list<string> values, string default = "", string summary = "">
    : Attr<"Enum", default, summary> {
  let Values = values;
}

/// Marks the start of the operand list in `Arguments`.
def ins;

/// An op. `Arguments` lists operands (Region, Expr) and attributes (Attr
/// subclasses) by name: (ins Region:$src, Region:$dst, BoolAttr:$flag).
/// `Format` spells the syntax: `$name` for an operand or an attribute written
/// in place, literal tokens in backquotes, and `attr-dict` for the remaining
/// attributes in braces.
class Op<Dialect dialect, string mnemonic> {
  Dialect OpDialect = dialect;
  string Mnemonic = mnemonic;
  string Summary = "";
  string Description = "";
  string Example = "";
  dag Arguments = (ins);
  string Format = "";
  /// C++ function `bool F(const tile::OpStmt &, tile::DiagnosticEngine &)`,
  /// or empty for none.
  string Verifier = "";
  /// An elementwise op acts on single elements, not on a tile: it may
  /// appear in parallel loops and in per-thread code.
  bit Elementwise = 0;
  /// The operands the op writes (the others are only read).
  list<string> Writes = [];
}
