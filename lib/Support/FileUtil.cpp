#include "ktune/Support/FileUtil.h"
#include "ktune/Support/Limits.h"
#include "ktune/Support/Try.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

#ifdef KTUNE_HAVE_ZLIB
#include <zlib.h>
#endif

namespace ktune {

Expected<std::string> readFile(const std::string &path, size_t maxBytes) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return makeError(std::string("cannot read file: ") + std::strerror(errno),
                     path);
  auto tooLarge = [&] {
    return makeError("the file is larger than " + std::to_string(maxBytes) +
                         " bytes, the most that is read (docs/limits.md)",
                     path);
  };
  // Refuse what is known to be too large before reading any of it; a pipe
  // or a growing file is bounded while it is read.
  struct stat st;
  if (::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
      static_cast<uint64_t>(st.st_size) > maxBytes)
    return tooLarge();
  std::string content;
  char buffer[1 << 16];
  while (in) {
    in.read(buffer, sizeof(buffer));
    size_t n = static_cast<size_t>(in.gcount());
    if (n > maxBytes - content.size())
      return tooLarge();
    content.append(buffer, n);
  }
  if (in.bad())
    return makeError("cannot read file", path);
  return content;
}

Status writeFileAtomically(const std::string &path,
                           const std::string &content) {
  namespace fs = std::filesystem;
  fs::path target(path);
  fs::path dir =
      target.parent_path().empty() ? fs::path(".") : target.parent_path();
  std::string tmpl =
      (dir / ("." + target.filename().string() + ".tmp.XXXXXX")).string();
  int fd = mkstemp(tmpl.data());
  if (fd < 0)
    return makeError(std::string("cannot create temporary file: ") +
                         std::strerror(errno),
                     path);
  const char *data = content.data();
  size_t left = content.size();
  while (left > 0) {
    ssize_t n = ::write(fd, data, left);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      int saved = errno;
      ::close(fd);
      ::unlink(tmpl.c_str());
      return makeError(std::string("cannot write: ") + std::strerror(saved),
                       path);
    }
    data += n;
    left -= static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    ::unlink(tmpl.c_str());
    return makeError(std::string("cannot write: ") + std::strerror(errno),
                     path);
  }
  // mkstemp creates 0600; give the output ordinary permissions.
  ::chmod(tmpl.c_str(), 0644);
  if (std::rename(tmpl.c_str(), path.c_str()) != 0) {
    int saved = errno;
    ::unlink(tmpl.c_str());
    return makeError(
        std::string("cannot rename into place: ") + std::strerror(saved), path);
  }
  return {};
}

namespace {

/// Builds the DOM as nlohmann's own parser does, but keeps where and why it
/// stopped, and refuses nesting deeper than limits::MaxJsonDepth. Every
/// failure of the parser (a syntax error, a number out of range such as
/// 1e999, invalid UTF-8) reaches parse_error with its byte offset; nothing
/// is thrown.
template <class BasicJson> class LocatingSax {
  using Dom = nlohmann::detail::json_sax_dom_parser<BasicJson>;

public:
  using number_integer_t = typename BasicJson::number_integer_t;
  using number_unsigned_t = typename BasicJson::number_unsigned_t;
  using number_float_t = typename BasicJson::number_float_t;
  using string_t = typename BasicJson::string_t;
  using binary_t = typename BasicJson::binary_t;

  explicit LocatingSax(BasicJson &result)
      : D(result, /*allow_exceptions=*/false) {}

  bool null() { return D.null(); }
  bool boolean(bool v) { return D.boolean(v); }
  bool number_integer(number_integer_t v) { return D.number_integer(v); }
  bool number_unsigned(number_unsigned_t v) { return D.number_unsigned(v); }
  bool number_float(number_float_t v, const string_t &s) {
    return D.number_float(v, s);
  }
  bool string(string_t &v) { return D.string(v); }
  bool binary(binary_t &v) { return D.binary(v); }
  bool key(string_t &v) { return D.key(v); }
  bool start_object(std::size_t n) { return enter() && D.start_object(n); }
  bool end_object() {
    --Depth;
    return D.end_object();
  }
  bool start_array(std::size_t n) { return enter() && D.start_array(n); }
  bool end_array() {
    --Depth;
    return D.end_array();
  }
  template <class Exception>
  bool parse_error(std::size_t position, const std::string &,
                   const Exception &ex) {
    fail(position, ex.what());
    return false;
  }

  bool failed() const { return Failed; }
  std::size_t position() const { return Position; }
  const std::string &message() const { return Message; }

private:
  bool enter() {
    if (++Depth <= limits::MaxJsonDepth)
      return true;
    fail(0, "nesting deeper than " + std::to_string(limits::MaxJsonDepth) +
                " levels");
    return false;
  }
  void fail(std::size_t position, std::string message) {
    Failed = true;
    Position = position;
    // "[json.exception.parse_error.101] parse error at line 1, column 2:
    // syntax error ..." -> "syntax error ..."; "[json.exception.
    // out_of_range.406] number overflow ..." -> "number overflow ...".
    if (size_t at = message.find("syntax error"); at != std::string::npos)
      message = message.substr(at);
    else if (message.starts_with("[json.exception."))
      if (size_t close = message.find("] "); close != std::string::npos)
        message = message.substr(close + 2);
    Message = std::move(message);
  }

  Dom D;
  std::size_t Depth = 0;
  bool Failed = false;
  std::size_t Position = 0;
  std::string Message;
};

/// The 1-based offset of the bracket that nests deeper than MaxJsonDepth
/// (the parser's events carry no offsets); 0 when there is none.
size_t tooDeepOffset(const std::string &text) {
  size_t depth = 0;
  bool inString = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (inString) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        inString = false;
    } else if (c == '"') {
      inString = true;
    } else if (c == '[' || c == '{') {
      if (++depth > limits::MaxJsonDepth)
        return i + 1;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return 0;
}

/// "origin:line:col" of byte `offset` (1-based, as nlohmann counts) of text.
std::string locate(const std::string &text, size_t offset,
                   const std::string &origin, size_t firstLine) {
  size_t line = firstLine, col = 1;
  for (size_t i = 0; i + 1 < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  return origin + ":" + std::to_string(line) + ":" + std::to_string(col);
}

template <class BasicJson>
Expected<BasicJson> parseAny(const std::string &text, const std::string &origin,
                             size_t firstLine = 1) {
  if (text.size() > limits::MaxJsonFileBytes)
    return makeError("JSON text of " + std::to_string(text.size()) +
                         " bytes; at most " +
                         std::to_string(limits::MaxJsonFileBytes) + " are read",
                     origin);
  BasicJson result;
  LocatingSax<BasicJson> sax(result);
  bool ok = BasicJson::sax_parse(text, &sax);
  if (!ok || sax.failed()) {
    if (!sax.failed()) // the parser stopped without saying why
      return makeError("invalid JSON", origin);
    size_t at = sax.position() ? sax.position() : tooDeepOffset(text);
    std::string where = at ? locate(text, at, origin, firstLine) : origin;
    return makeError("invalid JSON: " + sax.message(), where);
  }
  return result;
}

} // namespace

Expected<nlohmann::json> parseJson(const std::string &text,
                                   const std::string &origin) {
  return parseAny<nlohmann::json>(text, origin);
}

Expected<nlohmann::json> parseJsonLine(const std::string &line,
                                       const std::string &origin,
                                       size_t lineNo) {
  auto json = parseAny<nlohmann::json>(line, origin, lineNo);
  if (!json && json.error().where == origin)
    json.error().where = origin + ":" + std::to_string(lineNo);
  return json;
}

Expected<nlohmann::ordered_json> parseOrderedJson(const std::string &text,
                                                  const std::string &origin) {
  return parseAny<nlohmann::ordered_json>(text, origin);
}

Expected<nlohmann::json> readJsonFile(const std::string &path) {
  KTUNE_TRY_ASSIGN(auto text, readMaybeGzipFile(path));
  return parseJson(text, path);
}

Expected<std::string> readMaybeGzipFile(const std::string &path,
                                        size_t maxBytes) {
  auto raw = readFile(path, maxBytes);
  if (!raw)
    return raw;
  bool gz = raw->size() >= 2 && static_cast<unsigned char>((*raw)[0]) == 0x1f &&
            static_cast<unsigned char>((*raw)[1]) == 0x8b;
  if (!gz)
    return raw;
#ifdef KTUNE_HAVE_ZLIB
  z_stream zs{};
  if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK)
    return makeError("cannot initialise gzip decoder", path);
  zs.next_in = reinterpret_cast<Bytef *>(raw->data());
  zs.avail_in = static_cast<uInt>(raw->size());
  std::string out;
  char buffer[1 << 16];
  int rc = Z_OK;
  while (rc != Z_STREAM_END) {
    zs.next_out = reinterpret_cast<Bytef *>(buffer);
    zs.avail_out = sizeof(buffer);
    rc = inflate(&zs, Z_NO_FLUSH);
    if (rc != Z_OK && rc != Z_STREAM_END) {
      inflateEnd(&zs);
      return makeError("corrupt gzip data", path);
    }
    size_t n = sizeof(buffer) - zs.avail_out;
    if (n > maxBytes - out.size()) {
      inflateEnd(&zs);
      return makeError("the file decompresses to more than " +
                           std::to_string(maxBytes) +
                           " bytes, the most that is read (docs/limits.md)",
                       path);
    }
    out.append(buffer, n);
  }
  inflateEnd(&zs);
  return out;
#else
  return makeError("gzip input is not supported in this build (no zlib)", path);
#endif
}

} // namespace ktune
