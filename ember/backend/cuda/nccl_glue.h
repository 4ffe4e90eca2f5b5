// The host-side decisions of the NCCL backend (backend/cuda/process_group_nccl.cpp), free of nccl.h so that the C++
// tests check them without CUDA: NCCL's element type and reduction for a dtype and ReduceOp. The numbers are
// ncclDataType_t's and ncclRedOp_t's values (static_asserts in process_group_nccl.cpp keep them equal).
#pragma once

#include "ember/distributed/process_group.h"
#include "ember/error.h"

namespace ember::cuda::nccl_glue {

enum DataType : int {
  Int8 = 0,
  Uint8 = 1,
  Int32 = 2,
  Uint32 = 3,
  Int64 = 4,
  Uint64 = 5,
  Float16 = 6,
  Float32 = 7,
  Float64 = 8,
  Bfloat16 = 9
};
enum RedOp : int { Sum = 0, Prod = 1, Max = 2, Min = 3, Avg = 4 };

// The element type a reduction runs in; ops that only move data use bytes (Uint8) whatever the dtype.
inline DataType reduction_type(const char* op, ScalarType t) {
  switch (t) {
    case ScalarType::Bool:
    case ScalarType::UInt8: return Uint8;
    case ScalarType::Int8: return Int8;
    case ScalarType::Int32: return Int32;
    case ScalarType::Int64: return Int64;
    case ScalarType::Float16: return Float16;
    case ScalarType::BFloat16: return Bfloat16;
    case ScalarType::Float32: return Float32;
    case ScalarType::Float64: return Float64;
    default: break;
  }
  fail<TypeError>("[", op, "] the nccl backend cannot reduce ", dtype_name(t), " tensors");
}

// As c10d: bool SUM is MAX (logical or) and PRODUCT is MIN (logical and); bitwise ops are not NCCL's.
inline RedOp reduction_op(const char* op, distributed::ReduceOp r, ScalarType t) {
  using distributed::ReduceOp;
  const bool is_bool = t == ScalarType::Bool;
  switch (r) {
    case ReduceOp::SUM: return is_bool ? Max : Sum;
    case ReduceOp::PRODUCT: return is_bool ? Min : Prod;
    case ReduceOp::MIN: return Min;
    case ReduceOp::MAX: return Max;
    case ReduceOp::AVG: return Avg;
    default: break;
  }
  fail<ValueError>("[", op, "] ReduceOp.", distributed::reduce_op_name(r), " is not supported by the nccl backend");
}

}  // namespace ember::cuda::nccl_glue
