#include "tetrad/transport/mpi/mpi_util.h"

#include <climits>

#include "tetrad/core/error.h"

namespace tetrad::mpi {

std::string mpiErrorString(int code) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  if (MPI_Error_string(code, text, &length) != MPI_SUCCESS) {
    return fmt::format("MPI error code {}", code);
  }
  return std::string(text, static_cast<size_t>(length));
}

void checkMpi(int code, int rank, std::string_view what) {
  TETRAD_CHECK(code == MPI_SUCCESS, TransportError, "rank {}: {} failed: {}", rank, what,
               mpiErrorString(code));
}

ByteRun::ByteRun(size_t bytes) {
  if (bytes <= static_cast<size_t>(INT_MAX)) {
    count_ = static_cast<int>(bytes);
    return;
  }
  constexpr size_t kBlock = size_t{1} << 30;
  const size_t blocks = bytes / kBlock;
  const size_t rest = bytes % kBlock;
  TETRAD_CHECK(blocks <= static_cast<size_t>(INT_MAX), Unsupported,
               "message of {} bytes is too large for MPI", bytes);
  MPI_Datatype block = MPI_DATATYPE_NULL;
  MPI_Datatype body = MPI_DATATYPE_NULL;
  checkMpi(MPI_Type_contiguous(static_cast<int>(kBlock), MPI_BYTE, &block), -1,
           "MPI_Type_contiguous");
  checkMpi(MPI_Type_contiguous(static_cast<int>(blocks), block, &body), -1, "MPI_Type_contiguous");
  MPI_Type_free(&block);
  if (rest == 0) {
    type_ = body;
  } else {
    int lengths[2] = {1, static_cast<int>(rest)};
    MPI_Aint offsets[2] = {0, static_cast<MPI_Aint>(blocks * kBlock)};
    MPI_Datatype types[2] = {body, MPI_BYTE};
    checkMpi(MPI_Type_create_struct(2, lengths, offsets, types, &type_), -1,
             "MPI_Type_create_struct");
    MPI_Type_free(&body);
  }
  checkMpi(MPI_Type_commit(&type_), -1, "MPI_Type_commit");
  count_ = 1;
  derived_ = true;
}

ByteRun::~ByteRun() {
  if (derived_) MPI_Type_free(&type_);
}

uint64_t statusBytes(const MPI_Status& status) {
  MPI_Count count = 0;
  MPI_Get_elements_x(&status, MPI_BYTE, &count);
  return count < 0 ? 0 : static_cast<uint64_t>(count);
}

}  // namespace tetrad::mpi
