#include "mapping_guard.h"

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>

namespace account {

namespace {

constexpr int kSlots = 65536;

struct Slot {
  uintptr_t base;  // 0: free
  size_t size;
  uint32_t lost;
};

// Read by the handler: every field published with release before base.
// Mapped at the first guard: the shim, loaded into every program, never
// guards, and its image carries no table.
Slot* g_slots;
struct sigaction g_previous;
uint32_t g_installed;

void on_sigbus(int sig, siginfo_t* info, void* context) {
  (void)sig;
  (void)context;
  int saved_errno = errno;
  uintptr_t at = uintptr_t(info->si_addr);
  Slot* slots = __atomic_load_n(&g_slots, __ATOMIC_ACQUIRE);
  for (int i = 0; slots && i < kSlots; ++i) {
    Slot& s = slots[i];
    uintptr_t base = __atomic_load_n(&s.base, __ATOMIC_ACQUIRE);
    if (!base || at < base || at - base >= s.size) continue;
    // The same range, zeroed: the faulting access is retried on it.
    void* p = mmap(reinterpret_cast<void*>(base), s.size, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
    if (p != MAP_FAILED) {
      __atomic_store_n(&s.lost, 1u, __ATOMIC_RELEASE);
      errno = saved_errno;
      return;
    }
    break;
  }
  // Not a guarded mapping's: as without the guard (the access faults again).
  sigaction(SIGBUS, &g_previous, nullptr);
  errno = saved_errno;
}

bool install() {
  if (__atomic_load_n(&g_installed, __ATOMIC_ACQUIRE)) return true;
  if (!g_slots) {
    void* table = mmap(nullptr, sizeof(Slot) * kSlots, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (table == MAP_FAILED) return false;
    __atomic_store_n(&g_slots, static_cast<Slot*>(table), __ATOMIC_RELEASE);
  }
  struct sigaction action {};
  action.sa_sigaction = on_sigbus;
  action.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&action.sa_mask);
  if (sigaction(SIGBUS, &action, &g_previous) != 0) return false;
  __atomic_store_n(&g_installed, 1u, __ATOMIC_RELEASE);
  return true;
}

int g_next;  // where the search for a free slot starts

}  // namespace

int guard_mapping(void* base, size_t size) {
  if (!base || !install()) return -1;
  for (int n = 0; n < kSlots; ++n) {
    int i = (g_next + n) % kSlots;
    Slot& s = g_slots[i];
    if (__atomic_load_n(&s.base, __ATOMIC_RELAXED)) continue;
    s.size = size;
    s.lost = 0;
    __atomic_store_n(&s.base, uintptr_t(base), __ATOMIC_RELEASE);
    g_next = (i + 1) % kSlots;
    return i;
  }
  return -1;
}

void unguard_mapping(int slot) {
  if (slot >= 0 && slot < kSlots && g_slots)
    __atomic_store_n(&g_slots[slot].base, uintptr_t(0), __ATOMIC_RELEASE);
}

bool mapping_lost(int slot) {
  return slot >= 0 && slot < kSlots && g_slots &&
         __atomic_load_n(&g_slots[slot].lost, __ATOMIC_ACQUIRE);
}

}  // namespace account
