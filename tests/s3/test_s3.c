/* S3 addressing and answers: URLs, path-style vs virtual-hosted, key encoding, XML. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "aws/awserror.h"
#include "net/client_impl.h"
#include "ddbpipe/client.h"
#include "ddbpipe/s3.h"
#include "s3/s3_internal.h"

static ddb_client *client(void)
{
    ddb_client_opts co;
    ddb_client *c = NULL;
    ddb_error err;
    memset(&co, 0, sizeof(co));
    co.endpoint = "http://127.0.0.1:1";
    co.region = "us-east-1";
    cr_assert_eq(ddb_client_new(&c, &co, &err), 0, "%s", err.message);
    return c;
}

Test(s3, parses_urls)
{
    char *b, *k;
    ddb_error err;
    cr_assert_eq(ddb_s3_parse_url(&b, &k, "s3://bkt/a/b c.json", &err), 0);
    cr_assert_str_eq(b, "bkt");
    cr_assert_str_eq(k, "a/b c.json");
    free(b);
    free(k);
    cr_assert_eq(ddb_s3_parse_url(&b, &k, "s3://bkt", &err), 0);
    cr_assert_str_eq(k, "");
    free(b);
    free(k);
    cr_assert_eq(ddb_s3_parse_url(&b, &k, "s3:///key", &err), DDB_EUSAGE);
    cr_assert_eq(ddb_s3_parse_url(&b, &k, "/tmp/x", &err), DDB_EUSAGE);
}

Test(s3, addresses_custom_endpoints_path_style_and_aws_virtual_hosted)
{
    ddb_client *c = client();
    ddb_s3 *s3 = NULL;
    ddb_s3_opts o;
    ddb_buf url = DDB_BUF_INIT;
    const char *region;
    ddb_error err;

    memset(&o, 0, sizeof(o));
    o.client = c;
    o.region = "eu-west-1";
    o.endpoint = "http://127.0.0.1:9000/";
    cr_assert_eq(ddb_s3_new(&s3, &o, &err), 0, "%s", err.message);
    cr_assert_eq(ddb_s3_url(s3, &url, &region, "data", "a b/é+x.json", "list-type=2"), 0);
    cr_assert_str_eq(url.ptr, "http://127.0.0.1:9000/data/a%20b/%C3%A9%2Bx.json?list-type=2");
    cr_assert_str_eq(region, "eu-west-1");
    ddb_s3_free(s3);

    o.endpoint = NULL;
    cr_assert_eq(ddb_s3_new(&s3, &o, &err), 0, "%s", err.message);
    cr_assert_eq(ddb_s3_url(s3, &url, &region, "my-bucket", "k/v", NULL), 0);
    cr_assert_str_eq(url.ptr, "https://my-bucket.s3.eu-west-1.amazonaws.com/k/v");
    /* a dotted name would break the TLS name: path-style */
    cr_assert_eq(ddb_s3_url(s3, &url, &region, "my.bucket", "k", NULL), 0);
    cr_assert_str_eq(url.ptr, "https://s3.eu-west-1.amazonaws.com/my.bucket/k");
    ddb_s3_free(s3);
    ddb_buf_dispose(&url);
    ddb_client_free(c);
}

Test(s3, reads_xml_fields_with_entities)
{
    const char *xml = "<R><Contents><Key>a&amp;b&#13;</Key><ETag>&quot;x&quot;</ETag></Contents>"
                      "<Contents><Key>c</Key></Contents></R>";
    const char *p = xml, *end = xml + strlen(xml);
    ddb_buf v = DDB_BUF_INIT, k = DDB_BUF_INIT;
    cr_assert(ddb_s3_xml_take(&p, end, "Contents", &v));
    {
        const char *q = v.ptr;
        cr_assert(ddb_s3_xml_take(&q, v.ptr + v.len, "Key", &k));
        cr_assert_str_eq(k.ptr, "a&b\r");
        q = v.ptr;
        cr_assert(ddb_s3_xml_take(&q, v.ptr + v.len, "ETag", &k));
        cr_assert_str_eq(k.ptr, "\"x\"");
    }
    cr_assert(ddb_s3_xml_take(&p, end, "Contents", &v));
    cr_assert(!ddb_s3_xml_take(&p, end, "Contents", &v));
    ddb_buf_dispose(&v);
    ddb_buf_dispose(&k);
}

/* The one XML decoder S3, STS and the error bodies share. */
Test(s3, xml_decode_references)
{
    char out[64];
    const char *t = "&#65;&#x42;&#0;&#;&#x;&#-1;&# 65;&#1114112;&#xD800;&amp&nbsp;";
    cr_expect_eq(ddb_xml_decode(out, sizeof(out), t, strlen(t)), strlen(t) - 9);
    cr_expect_str_eq(out, "AB&#0;&#;&#x;&#-1;&# 65;&#1114112;&#xD800;&amp&nbsp;");
    /* cut to fit, never inside a character */
    t = "ab&#233;";
    cr_expect_eq(ddb_xml_decode(out, 4, t, strlen(t)), 2);
    cr_expect_str_eq(out, "ab");
    cr_expect_eq(ddb_xml_decode(out, 5, t, strlen(t)), 4);
    cr_expect_str_eq(out, "ab\xc3\xa9");
    /* the reference may not run past the text it is given */
    cr_expect_eq(ddb_xml_decode(out, sizeof(out), "&#65;", 4), 4);
    cr_expect_str_eq(out, "&#65");
}

/* Each leaf decoded once: an element holding others is not decoded before
 * its leaves are read (a key spelled like an entity or a tag stays as it is),
 * and a leaf one object lacks is not taken from the object before it. */
Test(s3, list_page_decodes_each_leaf_once)
{
    const char *xml = "<ListBucketResult><IsTruncated>true</IsTruncated>"
                      "<NextContinuationToken>t&amp;1</NextContinuationToken>"
                      "<Contents><Key>a&amp;amp;b&#x2F;&#233;</Key><ETag>&quot;e1&quot;</ETag>"
                      "<Size>5</Size></Contents>"
                      "<Contents><Key>&lt;Key&gt;x&lt;/Key&gt;</Key></Contents>"
                      "<CommonPrefixes><Prefix>d&amp;lt;/</Prefix></CommonPrefixes>"
                      "</ListBucketResult>";
    ddb_s3_listing l;
    ddb_buf token = DDB_BUF_INIT;
    memset(&l, 0, sizeof(l));
    cr_assert_eq(ddb_s3_list_page(&l, xml, strlen(xml), &token), 0);
    cr_assert_eq(l.n, 2);
    cr_expect_str_eq(l.objs[0].key, "a&amp;b/\xc3\xa9");
    cr_expect_str_eq(l.objs[0].etag, "\"e1\"");
    cr_expect_eq(l.objs[0].size, 5);
    cr_expect_str_eq(l.objs[1].key, "<Key>x</Key>");
    cr_expect_str_eq(l.objs[1].etag, "");
    cr_expect_eq(l.objs[1].size, 0);
    cr_assert_eq(l.n_dirs, 1);
    cr_expect_str_eq(l.dirs[0], "d&lt;/");
    cr_expect_str_eq(token.ptr, "t&1");
    /* an empty answer (no body at all) is an empty last page */
    cr_assert_eq(ddb_s3_list_page(&l, NULL, 0, &token), 0);
    cr_expect_eq(l.n, 2);
    cr_expect_eq(token.len, 0);
    ddb_s3_objects_free(l.objs, l.n);
    free(l.dirs[0]);
    free(l.dirs);
    ddb_buf_dispose(&token);
}

Test(s3, parses_error_answers)
{
    const char *body = "<?xml version=\"1.0\"?><Error><Code>SlowDown</Code>"
                       "<Message>Please reduce your request rate.</Message></Error>";
    char type[64], msg[128];
    cr_assert(ddb_parse_xml_error(body, strlen(body), type, sizeof(type), msg, sizeof(msg)));
    cr_assert_str_eq(type, "SlowDown");
    cr_assert_str_eq(msg, "Please reduce your request rate.");
    cr_assert(!ddb_parse_xml_error("{\"__type\":\"x\"}", 14, type, sizeof(type), msg, sizeof(msg)));
    /* a reference to a control character stays out of the one-line message */
    body = "<Error><Code>Slow&#10;Down</Code><Message>Please&#13;&#10;wait.</Message></Error>";
    cr_assert(ddb_parse_xml_error(body, strlen(body), type, sizeof(type), msg, sizeof(msg)));
    cr_assert_str_eq(type, "Slow Down");
    cr_assert_str_eq(msg, "Please  wait.");
}
