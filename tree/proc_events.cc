#include "proc_events.h"

#include <linux/cn_proc.h>
#include <linux/connector.h>
#include <linux/netlink.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace account {

namespace {

// Room for 64 Ki pending events (each skb costs about 1 KiB of buffer): a fork
// storm between two drains must not overflow it.
constexpr int kReceiveBuffer = 64 << 20;

bool send_op(int fd, proc_cn_mcast_op op) {
  alignas(nlmsghdr) char buf[NLMSG_SPACE(sizeof(cn_msg) + sizeof op)] = {};
  auto* nh = reinterpret_cast<nlmsghdr*>(buf);
  nh->nlmsg_len = sizeof buf;
  nh->nlmsg_type = NLMSG_DONE;
  auto* cn = static_cast<cn_msg*>(NLMSG_DATA(nh));
  cn->id.idx = CN_IDX_PROC;
  cn->id.val = CN_VAL_PROC;
  cn->len = sizeof op;
  std::memcpy(cn->data, &op, sizeof op);
  return send(fd, buf, sizeof buf, 0) == ssize_t(sizeof buf);
}

}  // namespace

ProcEvents::ProcEvents() {
  int fd = socket(PF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, NETLINK_CONNECTOR);
  if (fd < 0) {
    error_ = std::strerror(errno);
    return;
  }
  int size = kReceiveBuffer;
  if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof size) != 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof size);
  sockaddr_nl sa{};
  sa.nl_family = AF_NETLINK;
  sa.nl_groups = CN_IDX_PROC;
  if (bind(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa) != 0 ||
      !send_op(fd, PROC_CN_MCAST_LISTEN)) {
    error_ = std::strerror(errno);
    close(fd);
    return;
  }
  fd_ = fd;
}

ProcEvents::~ProcEvents() {
  if (fd_ < 0) return;
  send_op(fd_, PROC_CN_MCAST_IGNORE);
  close(fd_);
}

bool ProcEvents::fill() {
  for (;;) {
    ssize_t n = recv(fd_, buf_, sizeof buf_, 0);
    if (n > 0) {
      len_ = size_t(n);
      at_ = 0;
      return true;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == ENOBUFS) {
      lost_ = true;
      continue;
    }
    return false;  // EAGAIN: nothing waits
  }
}

bool ProcEvents::next(ProcEvent* event) {
  if (fd_ < 0) return false;
  for (;;) {
    if (at_ >= len_ && !fill()) return false;
    auto* nh = reinterpret_cast<nlmsghdr*>(buf_ + at_);
    size_t left = len_ - at_;
    if (!NLMSG_OK(nh, left)) {
      at_ = len_;
      continue;
    }
    at_ += NLMSG_ALIGN(nh->nlmsg_len);
    if (nh->nlmsg_type == NLMSG_ERROR || nh->nlmsg_type == NLMSG_NOOP) continue;
    if (nh->nlmsg_type == NLMSG_OVERRUN) {
      lost_ = true;
      continue;
    }
    auto* cn = static_cast<cn_msg*>(NLMSG_DATA(nh));
    if (cn->id.idx != CN_IDX_PROC || cn->id.val != CN_VAL_PROC) continue;
    proc_event ev;
    std::memcpy(&ev, cn->data, std::min<size_t>(sizeof ev, cn->len));
    event->monotonic_ns = ev.timestamp_ns;
    switch (ev.what) {
      case proc_event::PROC_EVENT_FORK:
        if (ev.event_data.fork.child_pid != ev.event_data.fork.child_tgid) continue;  // a thread
        event->kind = ProcEvent::kFork;
        event->pid = ev.event_data.fork.child_tgid;
        event->parent = ev.event_data.fork.parent_tgid;
        return true;
      case proc_event::PROC_EVENT_EXEC:
        event->kind = ProcEvent::kExec;
        event->pid = ev.event_data.exec.process_tgid;
        event->parent = 0;
        return true;
      case proc_event::PROC_EVENT_EXIT:
        if (ev.event_data.exit.process_pid != ev.event_data.exit.process_tgid) continue;
        event->kind = ProcEvent::kExit;
        event->pid = ev.event_data.exit.process_tgid;
        event->parent = 0;
        event->exit_status = int(ev.event_data.exit.exit_code);
        return true;
      default:
        continue;
    }
  }
}

}  // namespace account
