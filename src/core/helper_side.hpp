// The helper's side of core/child_process.hpp, for each helper's main(). Both the library and
// the helpers build this file; it uses nothing else of cuabi's.
#pragma once

#include <sys/types.h>

namespace cuabi {

// Reads "--parent <pid>" from the arguments, refuses to go on when that parent is already gone
// (it died before this helper started), and closes every descriptor inherited above the socket
// (the parent's files, sockets and pipes must not live on in here). 0 with *parent set, or the
// status the helper exits with: 2 for arguments without a parent, 3 for a parent gone.
int begin_helper(int argc, char** argv, pid_t* parent);

}  // namespace cuabi
