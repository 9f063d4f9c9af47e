//===- InstrTiming.td - Measured instruction timings ---------*- tablegen -*-===//
//
// Backends that compile through LLVM ask LLVM's scheduling model of the
// target CPU how fast an instruction runs (MCSchedModel: reciprocal
// throughput and latency). Where the model is wrong for a CPU in a way that
// changes a choice, a backend's .td records what was measured instead;
// tile-tblgen -gen-instr-timings makes a table of these records, which the
// backend consults before the model. Each record says where its numbers
// come from.
//
//===----------------------------------------------------------------------===//

/// Instruction `instr` (LLVM's opcode name, e.g. VDPBF16PSZr) on CPU `cpu`
/// (LLVM's name, as -mcpu takes it) issues every `rthroughput` cycles and
/// completes in `latency` cycles (decimal numbers, as strings), as measured
/// by `source`.
class InstrTiming<string cpu, string instr, string rthroughput, string latency,
                  string source> {
  string CPU = cpu;
  string Instr = instr;
  string RThroughput = rthroughput;
  string Latency = latency;
  string Source = source;
}
