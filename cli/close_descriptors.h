/// Closing every inherited descriptor but a few, for the lingering sampler
/// account run forks to outlive the command: it must hold no pipe a reader of
/// the run waits on.
#pragma once

#include <functional>

namespace account {

/// Closes every open descriptor of this process for which keep(fd) is false.
void close_descriptors_except(const std::function<bool(int)>& keep);

}  // namespace account
