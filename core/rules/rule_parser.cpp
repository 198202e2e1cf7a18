// The rule language parser: a lexer cuts the whole text into tokens, then a recursive-descent
// parser builds the RuleFile and checks each declaration as it ends. Errors travel as ParseError
// to parse_rules, the one entry point.
#include "rules/rule_parser.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

namespace scalify::rules {
namespace {

// Deeper terms are an error: parsing and Term's destructor recurse once per level.
constexpr size_t kMaxDepth = 256;

struct ParseError {
  SourcePos pos;
  std::string message;
};

std::string str(SourcePos p) { return std::to_string(p.line) + ":" + std::to_string(p.col); }

// ---------------------------------------------------------------------------------------------
// Characters and tokens

enum class Char : uint8_t { kWord, kSpace, kDelimiter, kControl };

Char char_class(char c) {
  static constexpr auto kTable = [] {
    std::array<Char, 256> t{};
    for (int ch = 0; ch < 256; ++ch) {
      Char k = Char::kWord;
      if (ch == ' ' || (ch >= '\t' && ch <= '\r')) {
        k = Char::kSpace;  // space, \t \n \v \f \r
      } else if (ch < 0x20 || ch == 0x7f) {
        k = Char::kControl;
      } else {
        for (char d : std::string_view("()[],:#\"?")) {
          if (ch == d) k = Char::kDelimiter;
        }
      }
      t[static_cast<size_t>(ch)] = k;
    }
    return t;
  }();
  return kTable[static_cast<unsigned char>(c)];
}

bool is_ident_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool is_ident_char(char c) { return is_ident_start(c) || (c >= '0' && c <= '9'); }

// [A-Za-z_][A-Za-z0-9_]*: relation names.
bool is_ident(std::string_view s) {
  return !s.empty() && is_ident_start(s[0]) && std::all_of(s.begin(), s.end(), is_ident_char);
}

// [A-Za-z0-9_.-]+: rule names.
bool is_rule_name(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(),
                                   [](char c) { return is_ident_char(c) || c == '.' || c == '-'; });
}

bool is_decl_keyword(std::string_view s) {
  return s == "relation" || s == "rewrite" || s == "birewrite" || s == "rule" || s == "ac" ||
         s == "comm";
}

// Text for a message: control bytes as '?', long text cut.
std::string printable(std::string_view s) {
  constexpr size_t kMax = 40;
  std::string out;
  for (char c : s.substr(0, kMax)) out += char_class(c) == Char::kControl ? '?' : c;
  if (s.size() > kMax) out += "...";
  return out;
}

std::string hex_byte(char c) {
  constexpr std::string_view kDigits = "0123456789abcdef";
  const auto u = static_cast<unsigned char>(c);
  return std::string("0x") + kDigits[u >> 4] + kDigits[u & 15];
}

// kError: the lexer stopped there; the parser reports it when it gets this far, so that the
// first error in the text wins.
enum class Tok {
  kEnd,
  kError,
  kLParen,
  kRParen,
  kLBracket,
  kRBracket,
  kComma,
  kColon,
  kVar,
  kWord,
  kString
};

struct Token {
  Tok kind = Tok::kEnd;
  std::string_view text;    // as written: a variable with its '?', a string with its quotes
  SourcePos pos;            // tokens never span lines
  bool line_start = false;  // the first token of its line
  SourcePos end() const { return {pos.line, pos.col + static_cast<uint32_t>(text.size())}; }
};

// A word token read as a number: [+-]?digits(.digits)?([eE][+-]?digits)?.
struct Number {
  enum class Kind { kNotNumber, kNumber, kOutOfRange } kind = Kind::kNotNumber;
  double value = 0;
  bool plain = false;       // written without '.' or exponent
  bool is_integer = false;  // plain and in int64 range
  int64_t integer = 0;
};

Number classify_number(std::string_view s) {
  Number n;
  size_t i = 0;
  const auto digits = [&] {
    const size_t from = i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
    return i > from;
  };
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
  if (!digits()) return n;
  n.plain = true;
  if (i < s.size() && s[i] == '.') {
    ++i;
    if (!digits()) return n;
    n.plain = false;
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    if (!digits()) return n;
    n.plain = false;
  }
  if (i != s.size()) return n;
  const std::string_view body = s[0] == '+' ? s.substr(1) : s;  // from_chars rejects '+'
  const char* end = body.data() + body.size();
  if (std::from_chars(body.data(), end, n.value).ec != std::errc()) {
    n.kind = Number::Kind::kOutOfRange;
    return n;
  }
  n.kind = Number::Kind::kNumber;
  n.is_integer = n.plain && std::from_chars(body.data(), end, n.integer).ec == std::errc();
  return n;
}

bool is_number(std::string_view s) { return classify_number(s).kind != Number::Kind::kNotNumber; }

// ---------------------------------------------------------------------------------------------
// Lexer

struct Lexed {
  std::vector<Token> tokens;  // ends with kEnd, or with kError
  std::string error;          // the kError token's message
};

class Lexer {
 public:
  explicit Lexer(std::string_view text) : text_(text) {
    if (text_.starts_with("\xEF\xBB\xBF")) line_begin_ = i_ = 3;  // a UTF-8 byte order mark
  }

  Lexed run() {
    Lexed out;
    bool line_start = true;
    while (true) {
      line_start = skip_space() || line_start;
      Token t;
      t.pos = here();
      t.line_start = line_start;
      line_start = false;
      if (i_ == text_.size()) {
        out.tokens.push_back(t);
        return out;
      }
      const size_t start = i_;
      t.kind = scan();
      t.text = text_.substr(start, i_ - start);
      if (t.kind == Tok::kError) {
        t.pos = error_pos_;
        out.tokens.push_back(t);
        out.error = std::move(error_);
        return out;
      }
      out.tokens.push_back(t);
    }
  }

 private:
  SourcePos here() const { return {line_, static_cast<uint32_t>(i_ - line_begin_ + 1)}; }
  char at(size_t i) const { return i < text_.size() ? text_[i] : '\0'; }

  Tok error(SourcePos pos, std::string message) {
    error_pos_ = pos;
    error_ = std::move(message);
    return Tok::kError;
  }

  // Skips white space and comments; true if it crossed a newline.
  bool skip_space() {
    bool newline = false;
    while (i_ < text_.size()) {
      const char c = text_[i_];
      if (c == '\n') {
        line_begin_ = ++i_;
        ++line_;
        newline = true;
      } else if (c == '#') {
        i_ = std::min(text_.find('\n', i_), text_.size());
      } else if (char_class(c) == Char::kSpace) {
        ++i_;
      } else {
        break;
      }
    }
    return newline;
  }

  Tok scan() {
    static constexpr std::string_view kPunctuation = "()[],:";
    static constexpr std::array<Tok, 6> kPunctuationTok = {
        Tok::kLParen, Tok::kRParen, Tok::kLBracket, Tok::kRBracket, Tok::kComma, Tok::kColon};
    const char c = text_[i_];
    if (const size_t k = kPunctuation.find(c); k != std::string_view::npos) {
      ++i_;
      return kPunctuationTok[k];
    }
    if (c == '"') return scan_string();
    if (c == '?') return scan_var();
    return scan_word();
  }

  Tok scan_word() {
    const size_t start = i_;
    while (i_ < text_.size() && char_class(text_[i_]) == Char::kWord) ++i_;
    if (i_ == start || (i_ < text_.size() && char_class(text_[i_]) == Char::kControl)) {
      return error(here(), "unexpected control character " + hex_byte(text_[i_]));
    }
    // `=>?y` is fine, but `a?b` is surely a missing space, not the word `a` and the variable ?b.
    const std::string_view word = text_.substr(start, i_ - start);
    if (at(i_) == '?' && word != "=" && word != "=>" && word != "<=>") {
      return error(here(),
                   "put a space between '" + printable(word) + "' and the variable after it");
    }
    return Tok::kWord;
  }

  Tok scan_var() {
    const SourcePos pos = here();
    const size_t start = i_++;
    while (i_ < text_.size() && is_ident_char(text_[i_])) ++i_;
    // Only '=' and '<' may follow a name directly (`?r=(…)`, `?x<=>?y`): `?x-y` is an error, not
    // the variable ?x and the word `-y`.
    size_t end = i_;
    while (end < text_.size() && char_class(text_[end]) == Char::kWord && text_[end] != '=' &&
           text_[end] != '<') {
      ++end;
    }
    if (i_ == start + 1 || !is_ident_start(text_[start + 1]) || end > i_) {
      if (end == start + 1) return error(pos, "'?' must be followed by a variable name");
      return error(pos, "'" + printable(text_.substr(start, end - start)) +
                            "' is not a variable: write '?' then a letter or '_', then letters, "
                            "digits or '_'");
    }
    if (at(i_) == '?') return error(here(), "put a space between two variables");
    return Tok::kVar;
  }

  Tok scan_string() {
    const SourcePos pos = here();
    for (++i_;; ++i_) {
      const char c = at(i_);
      if (i_ >= text_.size() || c == '\n' || c == '\r') {
        return error(pos, "unterminated string: a string ends with '\"' on the line it starts");
      }
      if (c == '"') {
        ++i_;
        return Tok::kString;
      }
      if (c == '\\') {
        const char e = at(i_ + 1);
        if (e == '"' || e == '\\') {
          ++i_;
        } else if (i_ + 1 < text_.size() && e != '\n' && e != '\r') {
          return error(here(), "unknown escape '\\" + printable(std::string_view(&e, 1)) +
                                   "' in a string: only \\\" and \\\\ are allowed");
        }
      } else if (char_class(c) == Char::kControl) {
        return error(here(), "unexpected control character " + hex_byte(c) + " in a string");
      }
    }
  }

  std::string_view text_;
  size_t i_ = 0;
  size_t line_begin_ = 0;
  uint32_t line_ = 1;
  SourcePos error_pos_;
  std::string error_;
};

// ---------------------------------------------------------------------------------------------
// Variables, for the "bound before use" checks

using VarSet = std::unordered_set<std::string_view>;

struct VarUse {
  std::string_view name;
  SourcePos pos;
};

void collect_vars(const Term& t, VarSet& out) {
  if (t.kind == Term::Kind::kVar) out.insert(t.name);
  for (const Term& a : t.args) collect_vars(a, out);
  for (const Term::Attr& a : t.attrs) collect_vars(a.value, out);
}

void collect_vars(const Item& item, VarSet& out) {
  if (item.kind == Item::Kind::kBind) out.insert(item.var);
  if (item.kind == Item::Kind::kAtom) {
    for (const Term& a : item.atom.args) collect_vars(a, out);
  } else {
    collect_vars(item.term, out);
  }
}

// The first variable of `t`, in written order, that is not in `bound`.
std::optional<VarUse> first_unbound(const Term& t, const VarSet& bound) {
  if (t.kind == Term::Kind::kVar && !bound.count(t.name)) return VarUse{t.name, t.pos};
  for (const Term& a : t.args) {
    if (auto v = first_unbound(a, bound)) return v;
  }
  for (const Term::Attr& a : t.attrs) {
    if (auto v = first_unbound(a.value, bound)) return v;
  }
  return std::nullopt;
}

std::optional<VarUse> first_unbound(const Item& item, const VarSet& bound) {
  if (item.kind == Item::Kind::kBind && !bound.count(item.var)) return VarUse{item.var, item.pos};
  if (item.kind != Item::Kind::kAtom) return first_unbound(item.term, bound);
  for (const Term& a : item.atom.args) {
    if (auto v = first_unbound(a, bound)) return v;
  }
  return std::nullopt;
}

// ---------------------------------------------------------------------------------------------
// Parser

class Parser {
 public:
  Parser(Lexed lexed, std::string_view file)
      : toks_(std::move(lexed.tokens)), lex_error_(std::move(lexed.error)) {
    out_.path = file;
  }

  RuleFile run() {
    while (peek().kind != Tok::kEnd) {
      const Token& t = peek();
      if (t.kind != Tok::kWord || !is_decl_keyword(t.text)) {
        fail_expected("'rewrite', 'birewrite', 'rule', 'relation', 'ac' or 'comm'");
      }
      if (!t.line_start) {
        fail(t.pos, "'" + std::string(t.text) + "' must begin a line: one declaration per line");
      }
      if (t.text == "relation") {
        parse_relation();
      } else if (t.text == "ac" || t.text == "comm") {
        parse_ac();
      } else {
        parse_rule();
      }
    }
    return std::move(out_);
  }

  /// One term and nothing after it (a goal, a term in a proof).
  Term run_term() {
    Term term = parse_term("a term", true);
    if (peek().kind != Tok::kEnd)
      fail(peek().pos, "unexpected '" + printable(peek().text) + "' after the term");
    return term;
  }

 private:
  // --- tokens. The list ends with kEnd or kError; peek() stops there. ---
  const Token& peek(size_t ahead = 0) const {
    const Token& t = toks_[std::min(i_ + ahead, toks_.size() - 1)];
    if (t.kind == Tok::kError) fail(t.pos, lex_error_);
    return t;
  }
  const Token& next() {
    const Token& t = peek();
    if (i_ + 1 < toks_.size()) ++i_;
    return t;
  }
  // A declaration keyword at the start of a line ends the declaration before it.
  static bool is_boundary(const Token& t) {
    return t.kind == Tok::kWord && t.line_start && is_decl_keyword(t.text);
  }
  // At the end of the current declaration.
  bool at_end() const { return peek().kind == Tok::kEnd || is_boundary(peek()); }
  bool at_word(std::string_view w) const {
    return peek().kind == Tok::kWord && peek().text == w && !at_end();
  }
  bool eat(Tok kind) {
    if (peek().kind != kind) return false;
    next();
    return true;
  }

  // --- errors ---
  [[noreturn]] void fail(SourcePos pos, std::string message) const {
    throw ParseError{pos, std::move(message)};
  }
  // Reports the next token where `what` was expected. At the end of the declaration the error is
  // placed just after the last token read, where the missing piece belongs.
  [[noreturn]] void fail_expected(std::string_view what) const {
    const Token& t = peek();
    if (t.kind == Tok::kEnd || is_boundary(t)) {
      const SourcePos at = i_ > 0 ? toks_[i_ - 1].end() : t.pos;
      if (!open_.empty()) fail(at, "unterminated '(' opened at " + str(open_.back()));
      fail(at, "expected " + std::string(what) + ", found " +
                   (t.kind == Tok::kEnd ? std::string("end of file")
                                        : "the next declaration ('" + std::string(t.text) +
                                              "' at " + str(t.pos) + ")"));
    }
    if (t.kind == Tok::kRParen && open_.empty()) fail(t.pos, "')' without a matching '('");
    if (t.kind == Tok::kRBracket) fail(t.pos, "']' without a matching '['");
    fail(t.pos, "expected " + std::string(what) + ", found '" + printable(t.text) + "'");
  }

  // --- terms ---

  // A term; `what` names it for messages. At rule level (`top`) the words '=>', '<=>' and 'if'
  // are never read as terms, so that a missing side is reported as missing.
  Term parse_term(std::string_view what, bool top) {
    if (at_end()) fail_expected(what);
    const Token& t = peek();
    Term term;
    term.pos = t.pos;
    switch (t.kind) {
      case Tok::kLParen:
        return parse_application();
      case Tok::kLBracket:
        return parse_list();
      case Tok::kVar:
        term.kind = Term::Kind::kVar;
        term.name = t.text.substr(1);
        break;
      case Tok::kString:
        term.kind = Term::Kind::kString;
        for (size_t k = 1; k + 1 < t.text.size(); ++k) {
          if (t.text[k] == '\\') ++k;  // the lexer checked the escapes
          term.name += t.text[k];
        }
        break;
      case Tok::kWord: {
        if (top && (t.text == "=>" || t.text == "<=>" || t.text == "if")) fail_expected(what);
        const Number n = number_of(t);
        if (n.kind == Number::Kind::kNumber) {
          term.kind = Term::Kind::kNumber;
          term.number = n.value;
          term.is_integer = n.is_integer;
          term.integer = n.integer;
        } else {
          term.kind = Term::Kind::kWord;
          term.name = t.text;
        }
        break;
      }
      default:
        fail_expected(what);
    }
    next();
    return term;
  }

  Number number_of(const Token& t) const {
    const Number n = classify_number(t.text);
    if (n.kind == Number::Kind::kOutOfRange) {
      fail(t.pos, "number '" + printable(t.text) + "' does not fit in a double");
    }
    return n;
  }

  int64_t integer_of(const Token& t, std::string_view what) const {
    const Number n = number_of(t);
    if (n.kind == Number::Kind::kNumber && n.plain && !n.is_integer) {
      fail(t.pos, "integer '" + printable(t.text) + "' does not fit in 64 bits");
    }
    if (!n.is_integer) fail(t.pos, std::string(what) + ", found '" + printable(t.text) + "'");
    return n.integer;
  }

  // '(' OPNAME {term} {':' KEY term} ')'
  Term parse_application() {
    const Token& open = next();
    if (open_.size() >= kMaxDepth) {
      fail(open.pos, "terms nested more than " + std::to_string(kMaxDepth) + " deep");
    }
    if (peek().kind == Tok::kRParen) {
      fail(open.pos, "empty application '()': write an operator name after '('");
    }
    open_.push_back(open.pos);
    Term term;
    term.kind = Term::Kind::kApply;
    term.pos = open.pos;
    const Token& op = peek();
    if (op.kind != Tok::kWord || at_end() || is_number(op.text)) {
      fail_expected("an operator name after '('");
    }
    term.name = op.text;
    next();
    while (!eat(Tok::kRParen)) {
      const Token& t = peek();
      if (t.kind == Tok::kColon) {
        term.attrs.push_back(parse_attr(term));
        continue;
      }
      const bool starts_term = t.kind == Tok::kLParen || t.kind == Tok::kLBracket ||
                               t.kind == Tok::kVar || t.kind == Tok::kWord ||
                               t.kind == Tok::kString;
      if (!term.attrs.empty() && starts_term && !at_end()) {
        fail(t.pos, "operand '" + printable(t.text) +
                        "' after an attribute: write the operands first, then the ':key value' "
                        "pairs");
      }
      term.args.push_back(parse_term("an operand, ':key value' or ')'", false));
    }
    open_.pop_back();
    return term;
  }

  Term::Attr parse_attr(const Term& app) {
    Term::Attr attr;
    attr.pos = next().pos;
    const Token& key = peek();
    if (key.kind != Tok::kWord || at_end() || is_number(key.text)) {
      fail_expected("an attribute name after ':'");
    }
    for (const Term::Attr& a : app.attrs) {
      if (a.key == key.text) {
        fail(attr.pos, "duplicate attribute ':" + a.key + "' (first given at " + str(a.pos) + ")");
      }
    }
    attr.key = key.text;
    next();
    attr.value = parse_term("a value for ':" + attr.key + "'", false);
    return attr;
  }

  // '[' {INTEGER [',']} ']'
  Term parse_list() {
    const Token& open = next();
    Term term;
    term.kind = Term::Kind::kList;
    term.pos = open.pos;
    while (!eat(Tok::kRBracket)) {
      const Token& t = peek();
      if (at_end()) fail(toks_[i_ - 1].end(), "unterminated '[' opened at " + str(open.pos));
      if (t.kind != Tok::kWord) {
        fail(t.pos, "expected an integer or ']' in the list opened at " + str(open.pos) +
                        ", found '" + printable(t.text) + "'");
      }
      term.list.push_back(integer_of(t, "a list holds integers"));
      next();
      eat(Tok::kComma);
    }
    return term;
  }

  // --- declarations ---

  // After a declaration: the end of the file or the next declaration, at the start of a line.
  void expect_decl_end(std::string_view what) const {
    if (at_end()) return;
    if (peek().kind == Tok::kWord && is_decl_keyword(peek().text)) {
      fail(peek().pos,
           "'" + std::string(peek().text) + "' must begin a line: one declaration per line");
    }
    fail_expected(what);
  }

  // relation IDENT '(' column {',' column} ')'
  // ac OP OP …   or   comm OP OP …
  void parse_ac() {
    const std::string keyword(peek().text);
    next();
    if (at_end()) fail_expected("an operator name after '" + keyword + "'");
    while (!at_end()) {
      const Token& op = peek();
      if (op.kind != Tok::kWord) fail_expected("an operator name");
      for (const AcDecl& d : out_.ac) {
        if (d.op == op.text) {
          fail(op.pos, "operator '" + std::string(op.text) + "' is already declared '" +
                           (d.associative ? "ac" : "comm") + "' at " + str(d.pos));
        }
      }
      out_.ac.push_back({std::string(op.text), op.pos, keyword == "ac"});
      next();
    }
  }

  void parse_relation() {
    RelationDecl rel;
    rel.pos = next().pos;
    const Token& name = peek();
    if (name.kind != Tok::kWord || at_end()) fail_expected("a relation name after 'relation'");
    if (!is_ident(name.text)) {
      fail(name.pos, "'" + printable(name.text) +
                         "' is not a relation name: write a letter or '_', then letters, digits "
                         "or '_'");
    }
    rel.name = name.text;
    if (const auto it = relations_.find(rel.name); it != relations_.end()) {
      fail(name.pos, "relation '" + rel.name + "' is already declared at " +
                         str(out_.relations[it->second].pos));
    }
    next();
    if (peek().kind != Tok::kLParen) {
      fail_expected("'(' and the column kinds of '" + rel.name + "'");
    }
    open_.push_back(next().pos);
    do {
      const Token& c = peek();
      if (c.kind != Tok::kWord || at_end()) {
        fail_expected("a column kind ('class', 'int' or 'word')");
      }
      if (c.text == "class") {
        rel.columns.push_back(RelationDecl::Column::kClass);
      } else if (c.text == "int") {
        rel.columns.push_back(RelationDecl::Column::kInt);
      } else if (c.text == "word") {
        rel.columns.push_back(RelationDecl::Column::kWord);
      } else {
        fail(c.pos,
             "unknown column kind '" + printable(c.text) + "': use 'class', 'int' or 'word'");
      }
      next();
    } while (eat(Tok::kComma));
    if (!eat(Tok::kRParen)) fail_expected("',' or ')' after a column kind");
    open_.pop_back();
    relations_.emplace(rel.name, out_.relations.size());
    out_.relations.push_back(std::move(rel));
    expect_decl_end("'rewrite', 'birewrite', 'rule', 'relation', 'ac' or 'comm'");
  }

  // rewrite / birewrite / rule NAME ':' …
  void parse_rule() {
    const Token& keyword = next();
    Rule rule;
    rule.pos = keyword.pos;
    rule.kind = keyword.text == "rewrite"     ? Rule::Kind::kRewrite
                : keyword.text == "birewrite" ? Rule::Kind::kBirewrite
                                              : Rule::Kind::kRule;
    const Token& name = peek();
    if (name.kind != Tok::kWord || at_end()) {
      fail_expected("a rule name after '" + std::string(keyword.text) + "'");
    }
    if (!is_rule_name(name.text)) {
      fail(name.pos, "'" + printable(name.text) +
                         "' is not a rule name: use letters, digits, '_', '.' and '-'");
    }
    rule.name = name.text;
    if (const auto it = rule_pos_.find(rule.name); it != rule_pos_.end()) {
      fail(name.pos,
           "duplicate rule name '" + rule.name + "' (first defined at " + str(it->second) + ")");
    }
    next();
    if (!eat(Tok::kColon)) fail_expected("':' after the rule name '" + rule.name + "'");
    if (rule.kind == Rule::Kind::kRule) {
      parse_rule_items(rule);
    } else {
      parse_rewrite(rule);
    }
    rule_pos_.emplace(rule.name, rule.pos);
    out_.rules.push_back(std::move(rule));
  }

  // `=>Rep(…)` is one word: the arrow needs a space after it unless a '(' or '?' follows.
  [[noreturn]] void fail_missing_arrow(std::string_view arrow, std::string_view what) const {
    const Token& t = peek();
    if (t.kind == Tok::kWord && t.text.size() > arrow.size() && t.text.starts_with(arrow) &&
        !at_end()) {
      fail(t.pos, "put a space after '" + std::string(arrow) + "' in '" + printable(t.text) + "'");
    }
    fail_expected(what);
  }

  void parse_guards(Rule& rule) {
    while (at_word("if")) {
      next();
      rule.guards.push_back(parse_term("a guard after 'if'", true));
    }
  }

  // LHS '=>' RHS {if GUARD}   or   LHS '<=>' RHS {if GUARD}
  void parse_rewrite(Rule& rule) {
    const bool bi = rule.kind == Rule::Kind::kBirewrite;
    const std::string arrow = bi ? "<=>" : "=>";
    rule.lhs = parse_term("the left-hand side", true);
    if (at_word(bi ? "=>" : "<=>")) {
      fail(peek().pos, bi ? "'=>' in a birewrite: use '<=>' (or 'rewrite' for one direction)"
                          : "'<=>' in a rewrite: use '=>' (or 'birewrite' for both directions)");
    }
    if (!at_word(arrow)) fail_missing_arrow(arrow, "'" + arrow + "' after the left-hand side");
    next();
    rule.rhs = parse_term("the right-hand side after '" + arrow + "'", true);
    parse_guards(rule);
    check_rewrite_vars(rule);
    expect_decl_end("'if' or the next declaration");
  }

  // ITEM {',' ITEM} {if GUARD} '=>' ITEM {',' ITEM}
  void parse_rule_items(Rule& rule) {
    do {
      rule.body.push_back(parse_item("a body item", false));
    } while (eat(Tok::kComma));
    parse_guards(rule);
    if (at_word("<=>")) fail(peek().pos, "'<=>' in a rule: a rule has one direction, use '=>'");
    if (!at_word("=>")) {
      const Item& last = rule.body.back();
      if (rule.guards.empty() && last.kind == Item::Kind::kTerm &&
          last.term.kind == Term::Kind::kWord && peek().kind == Tok::kLParen) {
        fail(peek().pos,
             "expected ',', 'if' or '=>' after a body item, found '(' (a relation "
             "fact has no space before its '(': " +
                 last.term.name + "(…))");
      }
      fail_missing_arrow("=>", rule.guards.empty() ? "',', 'if' or '=>' after a body item"
                                                   : "'if' or '=>' after a guard");
    }
    next();
    do {
      rule.head.push_back(parse_item("a head item", true));
    } while (eat(Tok::kComma));
    check_rule_vars(rule);
    expect_decl_end("',' or the next declaration");
  }

  // ?v = TERM  |  Relation(arg, …)  |  TERM
  Item parse_item(std::string_view what, bool head) {
    Item item;
    item.pos = peek().pos;
    const Token& t = peek();
    if (!at_end() && t.kind == Tok::kVar && peek(1).kind == Tok::kWord && peek(1).text == "=") {
      item.kind = Item::Kind::kBind;
      item.var = t.text.substr(1);
      next();
      next();
      item.term = parse_term("a term after '='", true);
    } else if (!at_end() && t.kind == Tok::kWord && is_ident(t.text) &&
               peek(1).kind == Tok::kLParen && peek(1).pos == t.end()) {
      item.kind = Item::Kind::kAtom;
      item.atom = parse_atom(head);
    } else {
      item.kind = Item::Kind::kTerm;
      item.term = parse_term(what, true);
    }
    return item;
  }

  Atom parse_atom(bool head) {
    Atom atom;
    const Token& name = next();
    atom.relation = name.text;
    atom.pos = name.pos;
    const auto it = relations_.find(atom.relation);
    if (it == relations_.end()) fail(name.pos, unknown_relation(atom.relation));
    const RelationDecl& rel = out_.relations[it->second];
    open_.push_back(next().pos);
    do {
      atom.args.push_back(parse_atom_arg(rel));
    } while (eat(Tok::kComma));
    const Token& close = peek();
    if (!eat(Tok::kRParen)) fail_expected("',' or ')' after an argument of '" + rel.name + "'");
    open_.pop_back();
    check_atom(atom, rel, head, close.pos);
    return atom;
  }

  // VAR | INTEGER | WORD
  Term parse_atom_arg(const RelationDecl& rel) {
    const Token& t = peek();
    Term arg;
    arg.pos = t.pos;
    if (!at_end() && t.kind == Tok::kVar) {
      arg.kind = Term::Kind::kVar;
      arg.name = t.text.substr(1);
    } else if (!at_end() && t.kind == Tok::kWord) {
      const Number n = number_of(t);
      if (n.kind == Number::Kind::kNumber) {
        arg.kind = Term::Kind::kNumber;
        arg.integer = integer_of(t, "a relation argument is a variable, an integer or a word");
        arg.number = n.value;
        arg.is_integer = true;
      } else {
        arg.kind = Term::Kind::kWord;
        arg.name = t.text;
      }
    } else if (t.kind == Tok::kLParen || t.kind == Tok::kLBracket || t.kind == Tok::kString) {
      fail(t.pos, std::string("a relation argument is a variable, an integer or a word, not ") +
                      (t.kind == Tok::kLParen   ? "a term: bind the term first (?t = (f ?x)) and "
                                                  "pass ?t"
                       : t.kind == Tok::kString ? "a string"
                                                : "a list"));
    } else {
      fail_expected("an argument of '" + rel.name + "'");
    }
    next();
    return arg;
  }

  std::string unknown_relation(const std::string& name) const {
    if (out_.relations.empty()) {
      return "unknown relation '" + name + "'; no relation is declared before it";
    }
    std::string message = "unknown relation '" + name + "'; declared relations: ";
    for (size_t k = 0; k < out_.relations.size(); ++k) {
      message += (k ? ", " : "") + out_.relations[k].name;
    }
    return message;
  }

  // The number of arguments, and literals against the column kinds.
  void check_atom(const Atom& atom, const RelationDecl& rel, bool head, SourcePos close) const {
    static constexpr std::array<std::string_view, 3> kColumn = {"class", "int", "word"};
    const size_t n = rel.columns.size();
    if (atom.args.size() != n) {
      std::string kinds;
      for (RelationDecl::Column c : rel.columns) {
        kinds += (kinds.empty() ? "" : ", ") + std::string(kColumn[static_cast<size_t>(c)]);
      }
      fail(atom.args.size() > n ? atom.args[n].pos : close,
           "relation '" + rel.name + "' takes " + std::to_string(n) + " argument" +
               (n == 1 ? "" : "s") + " (" + kinds + "), not " + std::to_string(atom.args.size()));
    }
    for (size_t k = 0; k < n; ++k) {
      const Term& a = atom.args[k];
      if (a.kind == Term::Kind::kVar) continue;
      const bool is_int = a.kind == Term::Kind::kNumber;
      const std::string written = is_int ? std::to_string(a.integer) : a.name;
      if (!is_int && a.name == "_") {
        if (head) fail(a.pos, "'_' (any value) in a head fact: a fact is asserted whole");
        continue;
      }
      const RelationDecl::Column c = rel.columns[k];
      if (c == RelationDecl::Column::kClass || is_int != (c == RelationDecl::Column::kInt)) {
        fail(a.pos, "argument " + std::to_string(k + 1) + " of '" + rel.name + "' (" +
                        (c == RelationDecl::Column::kInt ? "an " : "a ") +
                        std::string(kColumn[static_cast<size_t>(c)]) +
                        " column) must be a variable" +
                        (c == RelationDecl::Column::kClass ? ""
                         : c == RelationDecl::Column::kInt ? ", an integer"
                                                           : ", a word") +
                        " or '_', not '" + printable(written) + "'");
      }
    }
  }

  // --- variables ---

  [[noreturn]] void fail_var(const VarUse& v, std::string_view why) const {
    fail(v.pos, "variable '?" + std::string(v.name) + "' " + std::string(why));
  }

  void check_guard_vars(const Rule& rule, const VarSet& bound, std::string_view by) const {
    for (const Term& g : rule.guards) {
      if (auto v = first_unbound(g, bound)) {
        fail_var(*v, "in a guard is not bound by the " + std::string(by));
      }
    }
  }

  void check_rewrite_vars(const Rule& rule) const {
    VarSet lhs;
    collect_vars(rule.lhs, lhs);
    if (rule.kind == Rule::Kind::kBirewrite) {
      VarSet rhs;
      collect_vars(rule.rhs, rhs);
      constexpr std::string_view kWhy = ": both sides of a birewrite need the same variables";
      if (auto v = first_unbound(rule.lhs, rhs)) {
        fail_var(*v, "is on the left of '<=>' but not on the right" + std::string(kWhy));
      }
      if (auto v = first_unbound(rule.rhs, lhs)) {
        fail_var(*v, "is on the right of '<=>' but not on the left" + std::string(kWhy));
      }
    } else if (auto v = first_unbound(rule.rhs, lhs)) {
      fail_var(*v, "on the right of '=>' is not bound by the left-hand side");
    }
    check_guard_vars(rule, lhs, "left-hand side");
  }

  void check_rule_vars(const Rule& rule) const {
    VarSet body;
    for (const Item& item : rule.body) collect_vars(item, body);
    check_guard_vars(rule, body, "body");
    // A head `?v = term` with a new ?v names the term it adds, for the head items after it
    // (`=> ?D = (f ?A ?B), Rep(?d, ?D)`); with a bound ?v it joins the term to ?v's class.
    for (const Item& item : rule.head) {
      if (item.kind == Item::Kind::kBind) {
        if (auto v = first_unbound(item.term, body)) fail_var(*v, "in the head is not bound");
        collect_vars(item, body);
        continue;
      }
      if (auto v = first_unbound(item, body)) {
        fail_var(*v, "in the head is not bound by the body or an earlier '?v = term'");
      }
    }
  }

  std::vector<Token> toks_;
  std::string lex_error_;
  size_t i_ = 0;
  std::vector<SourcePos> open_;  // the '(' of the applications, facts and relations being read
  RuleFile out_;
  std::unordered_map<std::string, size_t> relations_;  // name → index in out_.relations
  std::unordered_map<std::string, SourcePos> rule_pos_;
};

}  // namespace

Expected<RuleFile> parse_rules(std::string_view text, std::string_view file) {
  try {
    return Parser(Lexer(text).run(), file).run();
  } catch (const ParseError& e) {
    return Diagnostic{std::string(file), e.pos, e.message, std::string(line_of(text, e.pos.line))};
  }
}

Expected<Term> parse_term(std::string_view text, std::string_view file) {
  try {
    return Parser(Lexer(text).run(), file).run_term();
  } catch (const ParseError& e) {
    return Diagnostic{std::string(file), e.pos, e.message, std::string(line_of(text, e.pos.line))};
  }
}

}  // namespace scalify::rules
