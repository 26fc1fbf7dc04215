//===- OpenAIPlanner.cpp - A model behind a chat-completions endpoint -----===//
//
// `openai:<base_url>`: any server speaking the OpenAI chat-completions API
// (vLLM, llama.cpp server, Ollama, hosted APIs). One user message holding
// the whole prompt, temperature 0. The API key comes from the environment
// only and is removed from everything saved or printed.
//
//===----------------------------------------------------------------------===//
#include "ktune/Planner/Planner.h"
#include "ktune/Planner/Prompt.h"

#include "PlannerInternal.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>

#ifdef KTUNE_HAVE_CURL
#include <curl/curl.h>
#include <mutex>
#endif

namespace ktune::planner {

bool haveHttpPlanner() {
#ifdef KTUNE_HAVE_CURL
  return true;
#else
  return false;
#endif
}

namespace {

/// "http://user:secret@host:8000/v1" -> "http://host:8000/v1".
std::string withoutUserInfo(const std::string &url) {
  size_t scheme = url.find("://");
  if (scheme == std::string::npos)
    return url;
  size_t hostStart = scheme + 3;
  size_t pathStart = url.find('/', hostStart);
  size_t at =
      url.rfind('@', pathStart == std::string::npos ? url.size() : pathStart);
  if (at == std::string::npos || at < hostStart)
    return url;
  return url.substr(0, hostStart) + url.substr(at + 1);
}

std::string trimSlashes(std::string s) {
  while (!s.empty() && s.back() == '/')
    s.pop_back();
  return s;
}

#ifdef KTUNE_HAVE_CURL

struct HttpResult {
  CURLcode code = CURLE_OK;
  long status = 0;
  std::string body;
  std::string curlError;
  double retryAfter = 0; // seconds, from a Retry-After header
  double seconds = 0;
  bool tooLarge = false;
};

constexpr size_t MaxResponseBytes = size_t(16) << 20;

size_t onBody(char *data, size_t size, size_t count, void *user) {
  auto *r = static_cast<HttpResult *>(user);
  size_t n = size * count;
  if (r->body.size() + n > MaxResponseBytes) {
    r->tooLarge = true;
    return 0; // aborts the transfer
  }
  r->body.append(data, n);
  return n;
}

size_t onHeader(char *data, size_t size, size_t count, void *user) {
  auto *r = static_cast<HttpResult *>(user);
  std::string_view line(data, size * count);
  constexpr std::string_view Name = "retry-after:";
  if (line.size() > Name.size()) {
    bool match = true;
    for (size_t i = 0; i < Name.size() && match; ++i)
      match = std::tolower(static_cast<unsigned char>(line[i])) == Name[i];
    if (match)
      r->retryAfter = std::atof(std::string(line.substr(Name.size())).c_str());
  }
  return size * count;
}

bool isLoopback(const std::string &url) {
  size_t scheme = url.find("://");
  std::string host = scheme == std::string::npos ? url : url.substr(scheme + 3);
  return host.starts_with("127.") || host.starts_with("localhost") ||
         host.starts_with("[::1]");
}

void initCurlOnce() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

std::string secondsText(double s) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%g", s);
  return buffer;
}

#endif

class OpenAIPlanner final : public Planner {
public:
  OpenAIPlanner(std::string baseUrl, PlannerOptions options, std::string key,
                std::string keyVariable)
      : Base(trimSlashes(std::move(baseUrl))), Options(std::move(options)),
        ApiKey(std::move(key)), KeyVariable(std::move(keyVariable)) {
    Endpoint =
        Base.ends_with("/chat/completions") ? Base : Base + "/chat/completions";
    if (Base.ends_with("/chat/completions"))
      Base.resize(Base.size() - std::string("/chat/completions").size());
  }

  std::string describe() const override {
    std::string d = "openai:" + withoutUserInfo(Base);
    if (!Options.model.empty())
      d += " (model " + Options.model + ")";
    return d;
  }

  Expected<std::string> prompt(const PlannerRequest &request) const override {
    return renderPrompt(request, Options.prompt);
  }

  PlannerReply propose(const PlannerRequest &request, const std::string &prompt,
                       int round) override {
    PlannerReply reply;
    reply.transport = {{"planner", "openai"},
                       {"endpoint", withoutUserInfo(Endpoint)},
                       {"api_key_from", KeyVariable.empty()
                                            ? nlohmann::json(nullptr)
                                            : nlohmann::json(KeyVariable)}};
#ifndef KTUNE_HAVE_CURL
    reply.failure = plannerError("this ktune was built without libcurl, so the "
                                 "openai: planner is not available (install "
                                 "libcurl4-openssl-dev and rebuild, or use "
                                 "command:<cmdline>)");
    return reply;
#else
    if (Options.model.empty()) {
      if (auto model = discoverModel(); !model) {
        reply.failure = model.error();
        return reply;
      } else {
        Options.model = *model;
        reply.transport["model_discovered"] = true;
      }
    }
    reply.transport["model"] = Options.model;

    nlohmann::json body = {
        {"model", Options.model},
        {"messages", {{{"role", "user"}, {"content", prompt}}}},
        {"temperature", 0},
        {"stream", false}};
    if (Options.jsonMode)
      body["response_format"] = {{"type", "json_object"}};
    if (Options.maxTokens)
      body["max_tokens"] = *Options.maxTokens;

    auto http = post(dumpJson(body), reply.transport);
    if (!http) {
      reply.failure = http.error();
      return reply;
    }
    reply.rawResponse = redact(clip(http->body, MaxReplyBytes), ApiKey);
    nlohmann::json response = nlohmann::json::parse(http->body, nullptr, false);
    if (response.is_discarded() || !response.is_object()) {
      reply.failure =
          plannerError("planner endpoint " + withoutUserInfo(Endpoint) +
                       " answered HTTP 200 with a body that is not JSON: " +
                       printable(redact(clip(http->body, 200), ApiKey)));
      return reply;
    }
    if (response.contains("usage"))
      reply.transport["usage"] = response["usage"];
    if (response.contains("model") && response["model"].is_string())
      reply.transport["served_model"] = response["model"];
    const nlohmann::json *choice = nullptr;
    if (response.contains("choices") && response["choices"].is_array() &&
        !response["choices"].empty() && response["choices"][0].is_object())
      choice = &response["choices"][0];
    if (!choice) {
      std::string why = "has no choices";
      if (response.contains("error"))
        why = "is an error: " + errorText(response["error"]);
      reply.failure =
          plannerError("planner endpoint " + withoutUserInfo(Endpoint) +
                       "'s response " + why);
      return reply;
    }
    if (choice->contains("finish_reason") &&
        (*choice)["finish_reason"].is_string())
      reply.transport["finish_reason"] = (*choice)["finish_reason"];
    const nlohmann::json *content = nullptr;
    if (choice->contains("message") && (*choice)["message"].is_object() &&
        (*choice)["message"].contains("content"))
      content = &(*choice)["message"]["content"];
    if (content && content->is_string()) {
      reply.text = redact(content->get<std::string>(), ApiKey);
    } else if (content && content->is_array()) {
      // Content parts: [{"type": "text", "text": "..."}].
      for (const auto &part : *content)
        if (part.is_object() && part.contains("text") &&
            part["text"].is_string())
          reply.text += redact(part["text"].get<std::string>(), ApiKey);
    } else {
      reply.failure =
          plannerError("planner endpoint " + withoutUserInfo(Endpoint) +
                       "'s response has no choices[0].message.content");
    }
    return reply;
#endif
  }

private:
#ifdef KTUNE_HAVE_CURL
  static std::string errorText(const nlohmann::json &error) {
    if (error.is_object() && error.contains("message") &&
        error["message"].is_string())
      return error["message"].get<std::string>();
    if (error.is_string())
      return error.get<std::string>();
    return dumpJson(error);
  }

  /// A short, printable account of an error body.
  std::string bodySnippet(const std::string &body) const {
    nlohmann::json j = nlohmann::json::parse(body, nullptr, false);
    std::string text = !j.is_discarded() && j.is_object() && j.contains("error")
                           ? errorText(j["error"])
                           : body;
    return printable(redact(clip(text, 300), ApiKey));
  }

  HttpResult perform(const std::string &url, const std::string *postBody) {
    initCurlOnce();
    HttpResult r;
    CURL *curl = curl_easy_init();
    if (!curl) {
      r.code = CURLE_FAILED_INIT;
      r.curlError = "cannot initialise libcurl";
      return r;
    }
    char errorBuffer[CURL_ERROR_SIZE] = {0};
    curl_slist *headers = nullptr;
    headers = curl_slist_append(headers, "Content-Type: application/json");
    headers = curl_slist_append(headers, "Accept: application/json");
    std::string auth;
    if (!ApiKey.empty()) {
      auth = "Authorization: Bearer " + ApiKey;
      headers = curl_slist_append(headers, auth.c_str());
    }
    curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
    if (postBody) {
      curl_easy_setopt(curl, CURLOPT_POSTFIELDS, postBody->data());
      curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE,
                       static_cast<curl_off_t>(postBody->size()));
    }
    curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS,
                     static_cast<long>(Options.connectTimeoutSeconds * 1000));
    curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS,
                     static_cast<long>(Options.timeoutSeconds * 1000));
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, onBody);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, &r);
    curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, onHeader);
    curl_easy_setopt(curl, CURLOPT_HEADERDATA, &r);
    curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, errorBuffer);
    curl_easy_setopt(curl, CURLOPT_USERAGENT, "ktune-planner");
    // Never send the key to wherever a redirect points.
    curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 0L);
    // A proxy from the environment cannot reach this machine's loopback.
    if (isLoopback(url))
      curl_easy_setopt(curl, CURLOPT_NOPROXY, "*");
    auto start = std::chrono::steady_clock::now();
    r.code = curl_easy_perform(curl);
    r.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &r.status);
    if (r.code != CURLE_OK)
      r.curlError = redact(
          *errorBuffer ? errorBuffer : curl_easy_strerror(r.code), ApiKey);
    curl_slist_free_all(headers);
    curl_easy_cleanup(curl);
    return r;
  }

  static bool transient(const HttpResult &r) {
    switch (r.code) {
    case CURLE_OK:
      return r.status == 429 || r.status == 408 || r.status >= 500;
    case CURLE_COULDNT_CONNECT:
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_PARTIAL_FILE:
      return true;
    default:
      // Timeouts are not retried: a model too slow for this prompt will be
      // as slow again, and the user chose the limit.
      return false;
    }
  }

  /// POSTs to the endpoint with retries; the error says what went wrong
  /// in one line.
  Expected<HttpResult> post(const std::string &body,
                            nlohmann::json &transport) {
    std::string url = withoutUserInfo(Endpoint);
    double wait = Options.backoffSeconds;
    int attempts = std::max(1, Options.attempts);
    HttpResult r;
    transport["attempts"] = nlohmann::json::array();
    for (int attempt = 1; attempt <= attempts; ++attempt) {
      r = perform(Endpoint, &body);
      nlohmann::json a = {{ "seconds", r.seconds }};
      if (r.code == CURLE_OK)
        a["http_status"] = r.status;
      else
        a["error"] = r.curlError;
      transport["attempts"].push_back(a);
      if (r.code == CURLE_OK && r.status >= 200 && r.status < 300)
        return r;
      if (!transient(r) || attempt == attempts)
        break;
      double pause = std::min(60.0, std::max(wait, r.retryAfter));
      std::this_thread::sleep_for(std::chrono::duration<double>(pause));
      wait *= 2;
    }
    std::string tries = " (" + std::to_string(transport["attempts"].size()) +
                        " attempt" +
                        (transport["attempts"].size() == 1 ? "" : "s") + ")";
    if (r.code == CURLE_OPERATION_TIMEDOUT)
      return makeError("planner endpoint " + url + " did not answer within " +
                       secondsText(Options.timeoutSeconds) +
                       " s (raise the limit with KTUNE_PLANNER_TIMEOUT or "
                       "--planner-timeout)");
    if (r.tooLarge)
      return makeError("planner endpoint " + url + " sent more than " +
                       std::to_string(MaxResponseBytes) + " bytes");
    if (r.code != CURLE_OK)
      return makeError("planner endpoint " + url +
                       " is not reachable: " + printable(r.curlError) + tries);
    std::string hint;
    if (r.status == 401 || r.status == 403)
      hint = ApiKey.empty()
                 ? " (no API key: set KTUNE_API_KEY or OPENAI_API_KEY)"
                 : " (is the key in " + KeyVariable + " valid?)";
    else if (r.status == 404)
      hint = " (is the base URL right? it usually ends in /v1)";
    return makeError("planner endpoint " + url + " answered HTTP " +
                     std::to_string(r.status) +
                     (transient(r) ? tries : std::string()) + ": " +
                     bodySnippet(r.body) + hint);
  }

  /// Without a model name, use the endpoint's only model.
  Expected<std::string> discoverModel() {
    std::string url = Base + "/models";
    HttpResult r = perform(url, nullptr);
    std::string shown = withoutUserInfo(url);
    if (r.code != CURLE_OK)
      return makeError("no model given (--model or KTUNE_MODEL), and " + shown +
                       " is not reachable: " + printable(r.curlError));
    if (r.status != 200)
      return makeError("no model given (--model or KTUNE_MODEL), and " + shown +
                       " answered HTTP " + std::to_string(r.status));
    nlohmann::json j = nlohmann::json::parse(r.body, nullptr, false);
    std::vector<std::string> ids;
    if (!j.is_discarded() && j.is_object() && j.contains("data") &&
        j["data"].is_array())
      for (const auto &m : j["data"])
        if (m.is_object() && m.contains("id") && m["id"].is_string())
          ids.push_back(m["id"].get<std::string>());
    if (ids.size() == 1)
      return ids.front();
    std::string list;
    for (size_t i = 0; i < ids.size() && i < 10; ++i)
      list += (i ? ", " : "") + printable(ids[i]);
    return makeError("no model given: pass --model or set KTUNE_MODEL" +
                     (ids.empty()
                          ? std::string()
                          : " (the endpoint serves " + list +
                                (ids.size() > 10 ? ", ..." : "") + ")"));
  }
#endif

  std::string Base, Endpoint;
  PlannerOptions Options;
  std::string ApiKey, KeyVariable;
};

} // namespace

Expected<std::unique_ptr<Planner>> makeOpenAIPlanner(std::string baseUrl,
                                                     PlannerOptions options) {
  if (!baseUrl.starts_with("http://") && !baseUrl.starts_with("https://"))
    return makeError("openai planner needs an http:// or https:// base URL, "
                     "e.g. openai:http://127.0.0.1:8000/v1 (got '" +
                     printable(withoutUserInfo(baseUrl)) + "')");
  std::string key, variable;
  for (const auto &name : options.apiKeyVariables)
    if (const char *v = std::getenv(name.c_str()); v && *v) {
      key = v;
      variable = name;
      break;
    }
  return std::make_unique<OpenAIPlanner>(std::move(baseUrl), std::move(options),
                                         std::move(key), std::move(variable));
}

} // namespace ktune::planner
