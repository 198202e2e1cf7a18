// Exported proofs: JSON, embedded in an HTML report, or taken from a session (proof_file.h).
#include "proofcheck/proof_file.h"

#include <fstream>
#include <sstream>

#include "store/session_file.h"
#include "support/read_file.h"
#include "verify/check_json.h"

namespace scalify::proofcheck {

namespace {

Diagnostic error(std::string_view file, std::string message) {
  return Diagnostic{std::string(file), {}, std::move(message), ""};
}

json::Object program(const std::string& path, const std::string& hlo) {
  json::Object o;
  o.set("path", path);
  o.set("hlo", hlo);
  return o;
}

Expected<bool> read_program(const json::Value& v, std::string_view key, std::string_view file,
                            std::string& path, std::string& hlo) {
  const json::Value* p = v.find(key);
  const json::Value* text = p ? p->find("hlo") : nullptr;
  if (!text || !text->is_string()) {
    return error(
        file, "the proof has no " + std::string(key) + " program ('" + std::string(key) + ".hlo')");
  }
  hlo = text->as_string();
  const json::Value* name = p->find("path");
  path = name && name->is_string() ? name->as_string() : std::string(key) + ".hlo";
  return true;
}

}  // namespace

json::Value proof_to_json(const ProofFile& proof) {
  json::Object o;
  o.set("format", std::string(kProofFormat));
  o.set("reference", program(proof.ref_path, proof.ref_hlo));
  o.set("distributed", program(proof.dist_path, proof.dist_hlo));
  o.set("result", verify::to_json(proof.result));
  return o;
}

Expected<ProofFile> proof_from_json(const json::Value& value, std::string_view file) {
  const json::Value* format = value.is_object() ? value.find("format") : nullptr;
  if (!format || !format->is_string() || format->as_string() != kProofFormat) {
    return error(file,
                 "not a Scalify proof (no \"format\": \"" + std::string(kProofFormat) + "\")");
  }
  ProofFile proof;
  if (auto ok = read_program(value, "reference", file, proof.ref_path, proof.ref_hlo); !ok) {
    return ok.error();
  }
  if (auto ok = read_program(value, "distributed", file, proof.dist_path, proof.dist_hlo); !ok) {
    return ok.error();
  }
  const json::Value* result = value.find("result");
  if (!result) return error(file, "the proof has no result");
  auto r = verify::result_from_json(*result, file);
  if (!r) return r.error();
  proof.result = std::move(*r);
  return proof;
}

Expected<ProofFile> read_proof(const std::string& path) {
  if (path.ends_with(".scalify")) {
    auto session = store::open_session(path);
    if (!session) return session.error();
    if (!session->result) return error(path, "the session holds no result to re-check");
    return ProofFile{session->reference.path, session->reference.hlo, session->distributed.path,
                     session->distributed.hlo, std::move(*session->result)};
  }
  std::optional<std::string> read = read_whole_file(path);
  if (!read) return error(path, "cannot read the file");
  std::string text = std::move(*read);
  if (path.ends_with(".html") || path.ends_with(".htm")) {
    const std::string open =
        "<script type=\"application/json\" id=\"" + std::string(kHtmlProofId) + "\">";
    const size_t begin = text.find(open);
    const size_t end = begin == std::string::npos ? begin : text.find("</script>", begin);
    if (end == std::string::npos) return error(path, "the report embeds no proof");
    text = text.substr(begin + open.size(), end - begin - open.size());
  }
  auto value = json::parse(text, path);
  if (!value) return value.error();
  return proof_from_json(*value, path);
}

}  // namespace scalify::proofcheck
