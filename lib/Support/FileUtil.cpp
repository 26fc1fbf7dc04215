#include "ktune/Support/FileUtil.h"
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

Expected<std::string> readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return makeError(std::string("cannot read file: ") + std::strerror(errno),
                     path);
  std::ostringstream content;
  content << in.rdbuf();
  return content.str();
}

Status writeFileAtomically(const std::string &path,
                           const std::string &content) {
  namespace fs = std::filesystem;
  fs::path target(path);
  fs::path dir = target.parent_path().empty() ? fs::path(".")
                                              : target.parent_path();
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
    return makeError(std::string("cannot rename into place: ") +
                         std::strerror(saved),
                     path);
  }
  return {};
}

Expected<nlohmann::json> parseJson(const std::string &text,
                                   const std::string &origin) {
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error &e) {
    // Translate the byte offset into line:col for the message.
    size_t line = 1, col = 1;
    for (size_t i = 0; i + 1 < e.byte && i < text.size(); ++i) {
      if (text[i] == '\n') {
        ++line;
        col = 1;
      } else {
        ++col;
      }
    }
    std::string what = e.what();
    auto pos = what.find("syntax error");
    return makeError("invalid JSON: " +
                         (pos == std::string::npos ? what : what.substr(pos)),
                     origin + ":" + std::to_string(line) + ":" +
                         std::to_string(col));
  }
}

Expected<nlohmann::json> readJsonFile(const std::string &path) {
  KTUNE_TRY_ASSIGN(auto text, readMaybeGzipFile(path));
  return parseJson(text, path);
}

Expected<std::string> readMaybeGzipFile(const std::string &path) {
  auto raw = readFile(path);
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
    out.append(buffer, sizeof(buffer) - zs.avail_out);
  }
  inflateEnd(&zs);
  return out;
#else
  return makeError("gzip input is not supported in this build (no zlib)",
                   path);
#endif
}

} // namespace ktune
