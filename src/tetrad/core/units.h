// Parsing and printing of user-facing quantities: sizes ("4KB", "64MiB"),
// bandwidths ("10Gbps", "1.25GBps"), durations ("25us", "1.5ms", "2s").
//
// Parsers throw InvalidArgument naming the offending text. Thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace tetrad {

// Bytes. Accepts B, KB, MB, GB (powers of 1000), KiB, MiB, GiB (powers of
// 1024) and K, M, G (powers of 1024, as in nccl-tests). Must be >= 0.
uint64_t parseBytes(std::string_view text);
// Bytes per second. Accepts bps, Kbps, Mbps, Gbps, Tbps (bits) and Bps, KBps,
// MBps, GBps (bytes). Must be > 0.
double parseBandwidth(std::string_view text);
// Seconds. Accepts s, ms, us, ns. Must be >= 0.
double parseDuration(std::string_view text);
// A plain number (double); `what` names the value in the error message.
double parseNumber(std::string_view text, std::string_view what);
int64_t parseInteger(std::string_view text, std::string_view what);

std::string formatBytes(double bytes);               // "4.0 KiB", "64.0 MiB"
std::string formatSeconds(double seconds);           // "12.3 us", "4.56 ms", "1.23 s"
std::string formatBandwidth(double bytesPerSecond);  // "1.25 GB/s"

}  // namespace tetrad
