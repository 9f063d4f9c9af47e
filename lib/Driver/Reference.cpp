//===- Reference.cpp - Checking results against the interpreter -----------===//

#include "tile/Driver/Reference.h"
#include "tile/IR/Interpreter.h"
#include <cmath>

using namespace tile;

std::pair<double, double> tile::getTolerance(DType T) {
  switch (T) {
  case DType::F64: return {1e-9, 1e-9};
  case DType::F32: return {1e-4, 1e-4};
  case DType::F16: return {1e-2, 1e-2};
  case DType::BF16: return {5e-2, 2e-2};
  case DType::F8E4M3: return {1.25e-1, 1.25e-1};
  case DType::F8E5M2: return {2.5e-1, 2.5e-1};
  default: return {0, 0}; // integers and booleans are exact
  }
}

CheckReport tile::compareWithReference(const HostTensor &Got,
                                       const ReferenceResult &Want) {
  CheckReport R;
  std::tie(R.ATol, R.RTol) = getTolerance(Got.getDType());
  int64_t N = Got.getNumElements();
  if (int64_t(Want.Values.size()) != N) {
    R.Failures = std::max<int64_t>(N, Want.Values.size());
    R.FirstBad = 0;
    return R;
  }
  for (int64_t I = 0; I != N; ++I) {
    double G = Got.get(I), W = Want.Values[I];
    bool Bad;
    if (std::isnan(W) || std::isnan(G)) {
      Bad = std::isnan(W) != std::isnan(G);
    } else if (std::isinf(W) || std::isinf(G)) {
      Bad = G != W;
    } else {
      double Abs = std::fabs(G - W);
      R.MaxAbsErr = std::max(R.MaxAbsErr, Abs);
      if (W != 0)
        R.MaxRelErr = std::max(R.MaxRelErr, Abs / std::fabs(W));
      Bad = Abs > R.ATol + R.RTol * std::fabs(W);
    }
    if (Bad) {
      if (!R.Failures) {
        R.FirstBad = I;
        R.FirstGot = G;
        R.FirstWant = W;
      }
      ++R.Failures;
    }
  }
  return R;
}

llvm::Expected<std::map<std::string, ReferenceResult>>
tile::runReference(const Function &F,
                   const std::map<std::string, HostTensor> &Tensors,
                   const std::map<std::string, double> &Scalars,
                   llvm::SourceMgr &SM) {
  std::vector<TensorArg> Storage(F.getParams().size());
  std::vector<ArgValue> Args;
  for (size_t I = 0; I != F.getParams().size(); ++I) {
    const Value *P = F.getParams()[I].get();
    std::string Name = P->getName().str();
    if (!P->isBuffer()) {
      auto It = Scalars.find(Name);
      if (It == Scalars.end())
        return llvm::createStringError("no value for scalar '" + Name + "'");
      Args.push_back(isFloat(P->getDType())
                         ? ArgValue::scalar(It->second)
                         : ArgValue::integer(int64_t(It->second)));
      continue;
    }
    auto It = Tensors.find(Name);
    if (It == Tensors.end())
      return llvm::createStringError("no tensor for '" + Name + "'");
    const HostTensor &T = It->second;
    TensorArg &R = Storage[I];
    R.Shape = T.getShape();
    R.Data.resize(size_t(T.getNumElements()));
    for (int64_t E = 0; E != T.getNumElements(); ++E)
      R.Data[E] = T.get(E);
    Args.push_back(ArgValue::tensor(R));
  }
  InterpretOptions Opts;
  Opts.SM = &SM;
  if (llvm::Error E = interpretFunction(F, Args, Opts))
    return std::move(E);
  std::map<std::string, ReferenceResult> Out;
  for (size_t I = 0; I != F.getParams().size(); ++I)
    if (F.getParams()[I]->isBuffer())
      Out[F.getParams()[I]->getName().str()] = {std::move(Storage[I].Shape),
                                               std::move(Storage[I].Data)};
  return Out;
}
