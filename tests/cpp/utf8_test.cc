// SPDX-License-Identifier: Apache-2.0
//
// UTF-8 validation against the examples and the grammar of RFC 3629 (sections
// 4 and 7): what a profile's text must be before it becomes Python text.
#include "offlab/net/utf8.h"

#include <gtest/gtest.h>

#include <string>

namespace offlab {
namespace {

TEST(Utf8, TheRfcExamplesAreValid) {
  EXPECT_TRUE(IsValidUtf8(""));
  EXPECT_TRUE(IsValidUtf8("A\xE2\x89\xA2\xCE\x91."));                // A<NOT IDENTICAL TO><ALPHA>.
  EXPECT_TRUE(IsValidUtf8("\xED\x95\x9C\xEA\xB5\xAD\xEC\x96\xB4"));  // Korean
  EXPECT_TRUE(IsValidUtf8("\xE6\x97\xA5\xE6\x9C\xAC\xE8\xAA\x9E"));  // Japanese
  EXPECT_TRUE(IsValidUtf8("\xEF\xBB\xBF\xF0\xA3\x8E\xB4"));          // BOM, U+233B4
  EXPECT_TRUE(IsValidUtf8("\xC2\x85"));                              // U+0085 written right
  EXPECT_TRUE(IsValidUtf8("\xF4\x8F\xBF\xBF"));                      // U+10FFFF
}

TEST(Utf8, WhatTheGrammarRefusesIsInvalid) {
  EXPECT_FALSE(IsValidUtf8("\x85"));              // a lone continuation byte (yaml-cpp's \N)
  EXPECT_FALSE(IsValidUtf8("e810\xA0x"));         // yaml-cpp's \_
  EXPECT_FALSE(IsValidUtf8("\xC0\xAF"));          // overlong '/'
  EXPECT_FALSE(IsValidUtf8("\xE0\x80\xAF"));      // overlong '/'
  EXPECT_FALSE(IsValidUtf8("\xED\xA0\x80"));      // a surrogate, U+D800
  EXPECT_FALSE(IsValidUtf8("\xF4\x90\x80\x80"));  // above U+10FFFF
  EXPECT_FALSE(IsValidUtf8("\xF5\x80\x80\x80"));
  EXPECT_FALSE(IsValidUtf8("\xE2\x89"));  // cut short
  EXPECT_FALSE(IsValidUtf8("\xC3\x28"));  // a continuation byte missing
  // The third and fourth bytes of a sequence are continuation bytes too
  // (UTF8-tail = %x80-BF): Python's bytes.decode refuses all of these.
  EXPECT_FALSE(IsValidUtf8("\xE2\x82\x28"));
  EXPECT_FALSE(IsValidUtf8("\xE2\x82\xC0"));
  EXPECT_FALSE(IsValidUtf8("\xF0\x90\x80\x28"));
  EXPECT_FALSE(IsValidUtf8("\xF0\x90\x28\x80"));
  EXPECT_FALSE(IsValidUtf8(std::string("\xFF", 1)));
}

}  // namespace
}  // namespace offlab
