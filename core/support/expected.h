// Expected<T>: a value or a Diagnostic. `core` reports every error about user input this way.
#pragma once

#include <utility>
#include <variant>

#include "support/diagnostic.h"

namespace scalify {

/// Either a T or a Diagnostic (C++20 has no std::expected yet).
///
///   Expected<int> parse_count(std::string_view s);
///   auto n = parse_count("12");
///   if (!n) std::cerr << n.error().format(); else use(*n);
template <class T>
class Expected {
 public:
  Expected(T value) : state_(std::move(value)) {}           // NOLINT: implicit by design
  Expected(Diagnostic error) : state_(std::move(error)) {}  // NOLINT: implicit by design

  bool has_value() const { return state_.index() == 0; }
  explicit operator bool() const { return has_value(); }

  T& value() & { return std::get<0>(state_); }
  const T& value() const& { return std::get<0>(state_); }
  T&& value() && { return std::get<0>(std::move(state_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T&& operator*() && { return std::move(*this).value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  const Diagnostic& error() const { return std::get<1>(state_); }

 private:
  std::variant<T, Diagnostic> state_;
};

}  // namespace scalify
