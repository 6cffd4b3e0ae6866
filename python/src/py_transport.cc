// PyTransport (py_transport.h): Transport calls forwarded to a Python
// endpoint, with the GIL taken for every call and Python exceptions turned
// into tetrad's TransportError naming the operation, the peer and the tag.
#include "py_transport.h"

#include <chrono>
#include <thread>

#include "tetrad/core/error.h"

namespace py = pybind11;

namespace tetrad::python {
namespace {

// A memoryview of `data` for the endpoint. Sends never write through it; it
// is writable only so that torch.frombuffer does not warn.
py::memoryview viewOf(std::span<const std::byte> data) {
  return py::memoryview::from_memory(const_cast<std::byte*>(data.data()),
                                     static_cast<py::ssize_t>(data.size()), false);
}

[[noreturn]] void failFromPython(const char* operation, int peer, Tag tag,
                                 const py::error_already_set& error) {
  TETRAD_FAIL(TransportError, "torch.distributed transport: {} peer {} tag {}: {}", operation, peer,
              tag, error.what());
}

// A handle returned by the endpoint; waiting calls handle.wait().
class PyRequest final : public Request {
 public:
  PyRequest(py::object handle, const char* operation, int peer, Tag tag,
            std::function<void()> onDone)
      : handle_(std::move(handle)),
        operation_(operation),
        peer_(peer),
        tag_(tag),
        onDone_(std::move(onDone)) {}
  ~PyRequest() override {
    py::gil_scoped_acquire gil;
    handle_ = py::object();
  }
  void wait() override {
    if (done_) return;
    {
      py::gil_scoped_acquire gil;
      try {
        handle_.attr("wait")();
      } catch (const py::error_already_set& error) {
        failFromPython(operation_, peer_, tag_, error);
      }
    }
    finish();
  }
  bool test() override {
    if (done_) return true;
    bool completed = false;
    {
      py::gil_scoped_acquire gil;
      try {
        completed = handle_.attr("is_completed")().cast<bool>();
      } catch (const py::error_already_set& error) {
        failFromPython(operation_, peer_, tag_, error);
      }
    }
    // A completed handle still runs wait() (size checks, copies).
    if (completed) wait();
    return done_;
  }

 private:
  void finish() {
    done_ = true;
    if (onDone_) onDone_();
  }
  py::object handle_;
  const char* operation_;
  int peer_;
  Tag tag_;
  std::function<void()> onDone_;
  bool done_ = false;
};

}  // namespace

PyTransport::PyTransport(py::object endpoint, int rank, int size, double timeoutSeconds)
    : Transport(rank, size, timeoutSeconds), endpoint_(std::move(endpoint)) {}

PyTransport::~PyTransport() {
  py::gil_scoped_acquire gil;
  endpoint_ = py::object();
}

RequestPtr PyTransport::isend(int peer, Tag tag, ConstBytes data) {
  checkPeer(peer, "isend");
  checkTag(tag, "isend");
  py::gil_scoped_acquire gil;
  py::object handle;
  try {
    handle = endpoint_.attr("isend")(peer, tag, viewOf(data));
  } catch (const py::error_already_set& error) {
    failFromPython("isend to", peer, tag, error);
  }
  const size_t bytes = data.size();
  return std::make_unique<PyRequest>(std::move(handle), "isend to", peer, tag,
                                     [this, peer, bytes] { traffic().countSent(peer, bytes); });
}

void PyTransport::send(int peer, Tag tag, ConstBytes data) {
  isend(peer, tag, data)->wait();
}

RequestPtr PyTransport::irecv(int peer, Tag tag, MutableBytes data) {
  checkPeer(peer, "irecv");
  checkTag(tag, "irecv");
  py::gil_scoped_acquire gil;
  py::object handle;
  try {
    handle = endpoint_.attr("irecv")(peer, tag, viewOf(data));
  } catch (const py::error_already_set& error) {
    failFromPython("irecv from", peer, tag, error);
  }
  const size_t bytes = data.size();
  return std::make_unique<PyRequest>(std::move(handle), "irecv from", peer, tag,
                                     [this, peer, bytes] { traffic().countReceived(peer, bytes); });
}

void PyTransport::recv(int peer, Tag tag, MutableBytes data) {
  irecv(peer, tag, data)->wait();
}

ByteBuffer PyTransport::recvMessage(int peer, Tag tag) {
  checkPeer(peer, "recvMessage");
  checkTag(tag, "recvMessage");
  ByteBuffer out;
  {
    py::gil_scoped_acquire gil;
    try {
      const py::buffer message = endpoint_.attr("recv_message")(peer, tag);
      const py::buffer_info info = message.request();
      const auto* begin = static_cast<const std::byte*>(info.ptr);
      out.assign(begin, begin + info.size * info.itemsize);
    } catch (const py::error_already_set& error) {
      failFromPython("recv_message from", peer, tag, error);
    }
  }
  traffic().countReceived(peer, out.size());
  return out;
}

Message PyTransport::recvAny(Tag tag) {
  TETRAD_FAIL(Unsupported, "torch.distributed transport: recvAny (tag {}) is not offered", tag);
}

double PyTransport::now() const {
  using Clock = std::chrono::steady_clock;
  return std::chrono::duration<double>(Clock::now().time_since_epoch()).count();
}

void PyTransport::sleepFor(double seconds) {
  // Called without the GIL (the module releases it around tetrad calls).
  std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
}

TaskPtr PyTransport::spawn(std::string name, std::function<void()> body) {
  TETRAD_FAIL(Unsupported, "torch.distributed transport: spawn('{}') is not offered", name);
}

LocalQueuePtr PyTransport::makeQueue(std::string name) {
  TETRAD_FAIL(Unsupported, "torch.distributed transport: makeQueue('{}') is not offered", name);
}

}  // namespace tetrad::python
