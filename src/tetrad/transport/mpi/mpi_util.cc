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

size_t tcpEagerLimit() {
  constexpr size_t kDefault = 65536;
  int provided = 0;
  if (MPI_T_init_thread(MPI_THREAD_MULTIPLE, &provided) != MPI_SUCCESS) return kDefault;
  size_t limit = kDefault;
  int index = -1;
  if (MPI_T_cvar_get_index("btl_tcp_eager_limit", &index) == MPI_SUCCESS) {
    char name[256];
    char description[1024];
    int nameLength = sizeof name;
    int descriptionLength = sizeof description;
    int verbosity = 0;
    int binding = 0;
    int scope = 0;
    MPI_Datatype type = MPI_DATATYPE_NULL;
    MPI_T_enum enumType{};
    MPI_T_cvar_handle handle{};
    int count = 0;
    if (MPI_T_cvar_get_info(index, name, &nameLength, &verbosity, &type, &enumType, description,
                            &descriptionLength, &binding, &scope) == MPI_SUCCESS &&
        MPI_T_cvar_handle_alloc(index, nullptr, &handle, &count) == MPI_SUCCESS) {
      if (count == 1) {
        unsigned long long value = 0;  // the widest type a size_t cvar has
        if (type == MPI_UNSIGNED_LONG_LONG || type == MPI_UNSIGNED_LONG) {
          unsigned long narrow = 0;
          if (type == MPI_UNSIGNED_LONG_LONG) {
            if (MPI_T_cvar_read(handle, &value) != MPI_SUCCESS) value = 0;
          } else if (MPI_T_cvar_read(handle, &narrow) == MPI_SUCCESS) {
            value = narrow;
          }
        } else if (type == MPI_INT || type == MPI_UNSIGNED) {
          int narrow = 0;
          if (MPI_T_cvar_read(handle, &narrow) == MPI_SUCCESS && narrow > 0) value = narrow;
        }
        if (value > 0) limit = static_cast<size_t>(value);
      }
      MPI_T_cvar_handle_free(&handle);
    }
  }
  MPI_T_finalize();
  return limit;
}

uint64_t statusBytes(const MPI_Status& status) {
  MPI_Count count = 0;
  MPI_Get_elements_x(&status, MPI_BYTE, &count);
  return count < 0 ? 0 : static_cast<uint64_t>(count);
}

}  // namespace tetrad::mpi
