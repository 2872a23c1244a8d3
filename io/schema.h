#pragma once
// Names and limits of Ember's schema inside the safetensors "__metadata__" (io/FORMAT.md §2),
// shared by the writer and the reader.
#include <cstddef>

namespace ember::io::detail {

/// The __metadata__ key holding Ember's JSON document, and the value of "format" beside it.
inline constexpr const char* kDocumentKey = "ember";
inline constexpr const char* kFormatKey = "format";
inline constexpr const char* kFormatName = "ember";
inline constexpr const char* kSchemaName = "ember.checkpoint";
/// The __metadata__ key of the header's own checksum (checksum.h's seal()), as it appears in the
/// header text, and the document's field that says the header must carry it.
inline constexpr const char* kHeaderChecksumKey = "ember.checksum";
inline constexpr const char* kHeaderChecksumField = "\"ember.checksum\":\"";
inline constexpr const char* kSealedField = "header_checksum";
/// Deepest value tree written or read (a file nested deeper is refused, not recursed into).
inline constexpr int kMaxDepth = 200;

}  // namespace ember::io::detail
