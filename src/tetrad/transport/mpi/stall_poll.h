// pollReporting(): pollFor() (mpi_util.h) with a stall report (internal to
// transport/mpi).
//
// Polls `ready` for up to the transport's timeout like pollFor; when the wait
// passes the stall threshold (transport/diagnostics.h, --stall-warn) it
// prints the one stall line naming the rank, the peer, the tag, the
// operation and the activity labels, then goes on polling until the
// timeout. Returns whether `ready` became true.
//
// Thread-safety: reentrant, as pollFor.
#pragma once

#include <cstdint>

#include "tetrad/transport/diagnostics.h"
#include "tetrad/transport/mpi/mpi_util.h"

namespace tetrad::mpi {

template <typename Ready>
bool pollReporting(const Transport& transport, double timeoutSeconds, const char* operation,
                   int peer, Tag tag, int64_t bytes, Ready&& ready, double busySeconds = 0.002) {
  const double warn = transport.diagnostics().stallWarnSeconds(transport.timeout());
  if (warn <= 0 || warn >= timeoutSeconds) return pollFor(timeoutSeconds, ready, busySeconds);
  if (pollFor(warn, ready, busySeconds)) return true;
  reportStall(transport, operation, peer, tag, bytes, warn);
  return pollFor(timeoutSeconds - warn, ready, 0.0);
}

}  // namespace tetrad::mpi
