// The well-formedness check the SVG tests rely on: it must reject what is broken.

#include "../support/xml_check.hpp"

#include <gtest/gtest.h>

namespace pipesim::testing {
namespace {

TEST(XmlCheck, AcceptsWellFormedDocuments) {
  EXPECT_EQ(xml_problem("<a/>"), "");
  EXPECT_EQ(xml_problem("<?xml version=\"1.0\"?>\n<!DOCTYPE svg PUBLIC \"-//W3C//DTD SVG 1.1//EN\" "
                        "[ <!ENTITY x \"y\"> ]>\n<!-- c < > -->\n<svg a='1' b=\"x &amp; y\">"
                        "<g><text>1 &lt; 2 &#916;</text></g><![CDATA[ <not a tag> ]]></svg>\n"),
            "");
}

TEST(XmlCheck, RejectsBrokenDocuments) {
  EXPECT_NE(xml_problem(""), "");
  EXPECT_NE(xml_problem("<a><b></a></b>"), "");
  EXPECT_NE(xml_problem("<a>"), "");
  EXPECT_NE(xml_problem("<a></a><b/>"), "");
  EXPECT_NE(xml_problem("<a x=1/>"), "");
  EXPECT_NE(xml_problem("<a x='1' x='2'/>"), "");
  EXPECT_NE(xml_problem("<a>&nbsp;</a>"), "");
  EXPECT_NE(xml_problem("<a>x & y</a>"), "");
  EXPECT_NE(xml_problem("<a x='<'/>"), "");
  EXPECT_NE(xml_problem("<a><!-- open </a>"), "");
  EXPECT_NE(xml_problem("text<a/>"), "");
  EXPECT_NE(xml_problem("<a></a"), "");
}

}  // namespace
}  // namespace pipesim::testing
