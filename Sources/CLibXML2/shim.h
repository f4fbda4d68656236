#ifndef AGGREGATOR_CLIBXML2_SHIM_H
#define AGGREGATOR_CLIBXML2_SHIM_H

// Debian's libxml2 headers pull in the system ICU, whose types clash with the ICU that
// Foundation bundles on Swift 6.3 ('UErrorCode' has different definitions). We never use
// libxml2's ICU encoders, so turn the feature macro off before the parser headers see it.
#include <libxml/xmlversion.h>
#undef LIBXML_ICU_ENABLED

#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <libxml/SAX2.h>
#include <libxml/HTMLparser.h>
#include <libxml/xmlerror.h>
// xmlFree is a global function pointer, which Swift 6 rejects as shared mutable state.
static inline void aggregator_xml_free(void *pointer) {
    xmlFree(pointer);
}

// Option flags import as structs; these give them as plain ints.
static inline int aggregator_xml_feed_options(void) {
    return XML_PARSE_NONET | XML_PARSE_RECOVER | XML_PARSE_NOCDATA | XML_PARSE_NOWARNING | XML_PARSE_NOERROR;
}

static inline int aggregator_html_options(void) {
    return HTML_PARSE_NONET | HTML_PARSE_RECOVER | HTML_PARSE_NOERROR | HTML_PARSE_NOWARNING
        | HTML_PARSE_COMPACT;
}

static inline unsigned int aggregator_sax2_magic(void) {
    return XML_SAX2_MAGIC;
}

#endif
