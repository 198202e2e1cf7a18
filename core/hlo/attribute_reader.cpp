// Readers for `key=value` attribute values and metadata.
#include "hlo/value_reader.h"

namespace scalify::hlo {
namespace {

ir::DimList read_dim_list(Cursor& c) {
  c.expect('{', "to open the dimension list");
  ir::DimList dims;
  if (c.eat('}')) return dims;
  do {
    dims.push_back(c.integer("dimension"));
  } while (c.eat(','));
  c.expect('}', "to close the dimension list");
  return dims;
}

std::vector<ir::SliceRange> read_slices(Cursor& c) {
  c.expect('{', "to open the slice");
  std::vector<ir::SliceRange> slices;
  if (c.eat('}')) return slices;
  do {
    c.expect('[', "to open a slice range");
    ir::SliceRange r;
    r.start = c.integer("slice start");
    c.expect(':', "in the slice range");
    r.limit = c.integer("slice limit");
    if (c.eat(':')) r.stride = c.integer("slice stride");
    c.expect(']', "to close the slice range");
    slices.push_back(r);
  } while (c.eat(','));
  c.expect('}', "to close the slice");
  return slices;
}

// `3x3`, `1_1x0_0`: groups separated by 'x', numbers within a group by '_'.
std::vector<std::vector<int64_t>> read_x_groups(Cursor& c, std::string_view what) {
  std::vector<std::vector<int64_t>> groups;
  c.skip_ws();
  do {
    std::vector<int64_t> group{c.integer(what)};
    while (c.peek() == '_') {
      c.advance();
      group.push_back(c.integer(what));
    }
    groups.push_back(std::move(group));
  } while (c.peek() == 'x' && (c.advance(), true));
  return groups;
}

ir::Window read_window(Cursor& c) {
  c.expect('{', "to open the window");
  ir::Window w;
  bool sized = false;
  while (!c.eat('}')) {
    const char* at = c.ptr();
    std::string_view field = c.word();
    c.expect('=', "after the window field");
    auto groups = read_x_groups(c, "window field");
    if (!sized) {
      w.dims.resize(groups.size());
      sized = true;
    } else if (groups.size() != w.dims.size()) {
      c.fail_at(at, "window field '" + std::string(field) + "' has " +
                        std::to_string(groups.size()) + " dimensions, expected " +
                        std::to_string(w.dims.size()));
    }
    const size_t want = field == "pad" ? 2 : 1;
    for (size_t i = 0; i < groups.size(); ++i) {
      if (groups[i].size() != want)
        c.fail_at(at, "malformed window field '" + std::string(field) + "'");
      ir::WindowDim& d = w.dims[i];
      const int64_t v = groups[i][0];
      if (field == "size")
        d.size = v;
      else if (field == "stride")
        d.stride = v;
      else if (field == "pad")
        d.pad_low = v, d.pad_high = groups[i][1];
      else if (field == "lhs_dilate")
        d.lhs_dilate = v;
      else if (field == "rhs_dilate")
        d.rhs_dilate = v;
      else if (field == "rhs_reversal")
        d.reversal = v != 0;
      else
        c.fail_at(at, "unknown window field '" + std::string(field) + "'");
    }
  }
  return w;
}

ir::ConvDimLabels read_dim_labels(Cursor& c) {
  c.skip_ws();
  const char* start = c.ptr();
  std::string_view lhs = c.word();  // stops at '>' of "->", keeping the '-'
  if (lhs.size() < 2 || lhs.back() != '-' || c.peek() != '>')
    c.fail_at(start, "expected dim_labels like b01f_01io->b01f");
  c.advance();
  std::string_view out = c.word();
  lhs.remove_suffix(1);
  const size_t underscore = lhs.find('_');
  if (underscore == std::string_view::npos || out.empty())
    c.fail_at(start, "expected dim_labels like b01f_01io->b01f");
  ir::ConvDimLabels labels{std::string(lhs.substr(0, underscore)),
                           std::string(lhs.substr(underscore + 1)), std::string(out)};
  auto has_all = [](const std::string& s, std::string_view letters) {
    for (char l : letters) {
      if (s.find(l) == std::string::npos) return false;
    }
    return true;
  };
  if (!has_all(labels.input, "bf") || !has_all(labels.kernel, "io") ||
      !has_all(labels.output, "bf")) {
    c.fail_at(start, "dim_labels must name b and f for input and output, i and o for the kernel");
  }
  return labels;
}

ir::PaddingConfig read_padding(Cursor& c) {
  const char* start = c.ptr();
  ir::PaddingConfig pad;
  for (const auto& g : read_x_groups(c, "padding")) {
    if (g.size() != 2 && g.size() != 3)
      c.fail_at(start, "padding must be LOW_HIGH or LOW_HIGH_INTERIOR per dimension");
    pad.push_back({g[0], g[1], g.size() == 3 ? g[2] : 0});
  }
  return pad;
}

ir::SourceTargetPairs read_source_target_pairs(Cursor& c) {
  c.expect('{', "to open source_target_pairs");
  ir::SourceTargetPairs pairs;
  if (c.eat('}')) return pairs;
  do {
    c.expect('{', "to open a source-target pair");
    const int64_t source = c.integer("source");
    c.expect(',', "between source and target");
    const int64_t target = c.integer("target");
    c.expect('}', "to close the pair");
    pairs.emplace_back(source, target);
  } while (c.eat(','));
  c.expect('}', "to close source_target_pairs");
  return pairs;
}

ir::FrontendAttributes read_frontend_attributes(Cursor& c) {
  c.expect('{', "to open frontend_attributes");
  ir::FrontendAttributes attrs;
  if (c.eat('}')) return attrs;
  do {
    c.skip_ws();
    std::string key = c.peek() == '"' ? c.string_literal() : std::string(c.word());
    if (key.empty()) c.fail("expected a frontend attribute name, found " + c.describe_next());
    c.expect('=', "after the frontend attribute name");
    c.skip_ws();
    std::string value = c.peek() == '"' ? c.string_literal() : std::string(c.balanced(false));
    attrs.emplace_back(std::move(key), std::move(value));
  } while (c.eat(','));
  c.expect('}', "to close frontend_attributes");
  return attrs;
}

ir::ComputationRefs read_computation_refs(Cursor& c) {
  ir::ComputationRefs refs;
  if (c.eat('{')) {
    if (c.eat('}')) return refs;
    do {
      refs.names.emplace_back(c.expect_name("a computation name"));
    } while (c.eat(','));
    c.expect('}', "to close the computation list");
    return refs;
  }
  refs.names.emplace_back(c.expect_name("a computation name"));
  return refs;
}

bool read_bool(Cursor& c) {
  const char* at = c.ptr();
  std::string_view w = c.word();
  if (w == "true") return true;
  if (w == "false") return false;
  c.fail_at(at, "expected true or false, found '" + std::string(w) + "'");
}

}  // namespace

ir::AttrValue read_attr_value(Cursor& c, std::string_view key) {
  c.skip_ws();
  switch (ir::attr_kind_of(key)) {
    case ir::AttrKind::kInt:
      return c.integer(key);
    case ir::AttrKind::kBool:
      return read_bool(c);
    case ir::AttrKind::kString:
      return c.string_literal();
    case ir::AttrKind::kWord: {
      std::string_view w = c.bare_value();
      if (w.empty())
        c.fail("expected a value for '" + std::string(key) + "', found " + c.describe_next());
      return ir::Word{std::string(w)};
    }
    case ir::AttrKind::kDimList:
      return read_dim_list(c);
    case ir::AttrKind::kSlice:
      return read_slices(c);
    case ir::AttrKind::kWindow:
      return read_window(c);
    case ir::AttrKind::kConvDimLabels:
      return read_dim_labels(c);
    case ir::AttrKind::kPadding:
      return read_padding(c);
    case ir::AttrKind::kReplicaGroups:
      return read_replica_groups(c);
    case ir::AttrKind::kSourceTargetPairs:
      return read_source_target_pairs(c);
    case ir::AttrKind::kSharding:
      return ir::Boxed<ir::Sharding>(read_sharding(c));
    case ir::AttrKind::kFrontendAttributes:
      return read_frontend_attributes(c);
    case ir::AttrKind::kComputations:
      return read_computation_refs(c);
    case ir::AttrKind::kStringOrRaw:
      if (c.peek() == '"') return c.string_literal();
      [[fallthrough]];
    case ir::AttrKind::kRaw: {
      std::string_view text = c.balanced(/*stop_at_newline=*/true);
      if (text.empty())
        c.fail("expected a value for '" + std::string(key) + "', found " + c.describe_next());
      return ir::Raw{std::string(text)};
    }
  }
  c.fail("unreachable attribute kind");
}

ir::Metadata read_metadata(Cursor& c) {
  c.expect('{', "to open the metadata");
  ir::Metadata md;
  while (!c.eat('}')) {
    c.eat(',');  // some writers separate fields with commas
    const char* at = c.ptr();
    std::string_view key = c.word();
    if (key.empty()) c.fail("expected a metadata field, found " + c.describe_next());
    c.expect('=', "after the metadata field");
    c.skip_ws();
    if (key == "op_type")
      md.op_type = c.string_literal();
    else if (key == "op_name")
      md.op_name = c.string_literal();
    else if (key == "source_file")
      md.source_file = c.string_literal();
    else if (key == "source_line" || key == "source_column" || key == "stack_frame_id") {
      // Negative means "absent" in the IR, so a written negative number could not round-trip.
      const char* number_at = c.ptr();
      const int64_t v = c.integer(key);
      if (v < 0) c.fail_at(number_at, std::string(key) + " must not be negative");
      (key == "source_line"     ? md.source_line
       : key == "source_column" ? md.source_column
                                : md.stack_frame_id) = v;
    } else {
      const char* value_start = c.ptr();
      if (c.peek() == '"') {
        c.string_literal();
      } else if (c.peek() == '{') {
        c.advance();
        c.until_matching('{', '}', "metadata value");
      } else if (c.bare_value().empty()) {
        c.fail_at(at, "expected a value for metadata field '" + std::string(key) + "'");
      }
      md.other.emplace_back(std::string(key), std::string(value_start, c.ptr()));
    }
  }
  return md;
}

}  // namespace scalify::hlo
