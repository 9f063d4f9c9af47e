//===- PassBase.td - Base classes for pass declarations ----*- tablegen -*-===//
//
// Passes are declared with these classes; tile-tblgen -gen-pass-defs emits
// a constant PassInfo table and a registration function for them. The
// declaration carries the name used in textual pipelines, the summary and
// description shown by `tile-opt -help` and the docs, the options, and the
// C++ factory that creates the pass.
//
//===----------------------------------------------------------------------===//

/// A pass option: `-passes=name{option=value}`. With `funcAttr`
/// (`pass.<name>`), a function attribute of that name sets the option for
/// that function alone (`attributes {pass.warp_specialize = false}`); its
/// value has the option's type (bool: true or false; int: an integer;
/// string: a string or a bare word), and the pass manager reports another
/// as an error at the attribute. A string option with `values` takes one
/// of them and nothing else, from a pipeline or an attribute.
class PassOption<string name, string type, string default, string summary,
                 string funcAttr = "", list<string> values = []> {
  string Name = name;
  /// "int", "bool" or "string".
  string Type = type;
  string Default = default;
  string Summary = summary;
  string FuncAttr = funcAttr;
  /// The values a string option takes (empty: any string).
  list<string> Values = values;
}

/// A group of passes registered together by `RegisterFn`.
class PassGroup<string registerFn> {
  string RegisterFn = registerFn;
}

class Pass<PassGroup group, string name> {
  PassGroup Group = group;
  string Name = name;
  string Summary = "";
  string Description = "";
  list<PassOption> Options = [];
  /// `std::unique_ptr<tile::Pass> F()` creating the pass.
  string Constructor = "";
}
