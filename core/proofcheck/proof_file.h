// Exported proofs: the two programs and the result of their check in one JSON document
// (`scalify check … --proof OUT.json`), also embedded in an HTML report and derivable from a
// session, so that `scalify proof verify FILE` can re-check any of the three.
#pragma once

#include <string>
#include <string_view>

#include "support/expected.h"
#include "support/json.h"
#include "verify/check_result.h"

namespace scalify::proofcheck {

/// What an exported proof holds: both programs as text, and the result whose derivation and
/// goals are the proof.
struct ProofFile {
  std::string ref_path, ref_hlo;
  std::string dist_path, dist_hlo;
  verify::CheckResult result;
};

/// The format name written and accepted.
inline constexpr std::string_view kProofFormat = "scalify-check-proof-1";

/// {"format": "scalify-check-proof-1", "reference": {"path", "hlo"},
///  "distributed": {"path", "hlo"}, "result": <check --json, with the derivation>}
///
///   write_file_atomically("p.json", proof_to_json(proof).dump(), "the proof");
json::Value proof_to_json(const ProofFile& proof);
Expected<ProofFile> proof_from_json(const json::Value& value, std::string_view file);

/// Reads a proof from `path`: a JSON proof, an HTML report (the proof it embeds), or a session
/// (`.scalify`: its programs and result). Errors name the file and say what is missing.
Expected<ProofFile> read_proof(const std::string& path);

/// The element of an HTML report that holds its proof (a `<script type="application/json">`,
/// which a browser neither shows nor runs).
inline constexpr std::string_view kHtmlProofId = "scalify-proof";

}  // namespace scalify::proofcheck
