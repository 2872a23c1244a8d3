#include "ember/core/size2.h"

namespace ember {

std::ostream& operator<<(std::ostream& os, const Size2& s) { return os << '[' << s.h << ", " << s.w << ']'; }

}  // namespace ember
