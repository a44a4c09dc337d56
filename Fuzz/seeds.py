#!/usr/bin/env python3
"""Writes the fuzz seed corpora.

    Fuzz/seeds.py batch DIR   hostile batch lines, one seed file each (committed: Fuzz/corpus/batch)
    Fuzz/seeds.py large DIR   large batch inputs (a 1 MB text, 10,000 lines, ...): written by Fuzz/run
                              for its long-line runs, never committed
    Fuzz/seeds.py font DIR    small fonts and truncations of them (committed: Fuzz/corpus/font);
                              needs fontTools (pip install fonttools) to subset the bundled fonts
    Fuzz/seeds.py frame DIR   what clients send on a connection: HTTP/1 requests in and out of the
                              server's strict framing (committed: Fuzz/corpus/frame)

Seeds are named after what they hold, so that a failing one says what it is about.
"""
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def line(**fields):
    return json.dumps(fields, ensure_ascii=False, separators=(",", ":")).encode()


def batch_seeds():
    seeds = {}
    seeds["valid"] = b'{"text":"Hello, world","width":50,"id":7}'
    seeds["valid-all-fields"] = b'{"id":"a","text":"Hello world, again","width":80.5,"size":13,"maxLines":2}'
    numbers = ["1e12", "1e300", "1e309", "-1e309", "-0", "0", "-0.0", "1e-320", "4.9e-324", "-1e308",
               "1.7976931348623157e308", "9223372036854775807", "9223372036854775808", "-9223372036854775809",
               "1e19", "1e-300", "100000", "100000.0001", "0.0009765625", "0.00048828125", "2147483647",
               "1E+2", "1e-7"]
    for n in numbers:
        seeds[f"width-{n}"] = b'{"text":"a b c","width":%s}' % n.encode()
        seeds[f"size-{n}"] = b'{"text":"a b c","width":100,"size":%s}' % n.encode()
    for n in ["9223372036854775807", "9223372036854775808", "-1", "1.5", "1e3", "0", "-0", "2147483648"]:
        seeds[f"maxLines-{n}"] = b'{"text":"a b c d e f g","width":10,"maxLines":%s}' % n.encode()
    for key in ["lineHeight", "lineHeightMultiple"]:
        for n in ["20", "0", "-1", "1e308", "1e19", "1.5", "4.9e-324", "null", "\"20\""]:
            seeds[f"{key}-{n.strip(chr(34))}"] = b'{"text":"a\\nb","width":100,"%s":%s}' % (key.encode(), n.encode())
    # Text bytes and escapes.
    seeds["utf8-invalid"] = b'{"text":"a\xff\xfeb \xc3 \xc0\xaf \xed\xa0\x80 \xf4\x90\x80\x80","width":40}'
    seeds["utf8-invalid-key"] = b'{"\xff":1,"text":"x","width":40}'
    seeds["utf8-outside-string"] = b'{"text":"x","width":40}\xff'
    seeds["nul-raw-in-string"] = b'{"text":"a\x00b","width":40}'
    seeds["nul-escaped"] = b'{"text":"a\\u0000b\\u0000","width":40}'
    seeds["nul-outside"] = b'\x00{"text":"a","width":40}'
    seeds["surrogate-lone-high"] = b'{"text":"\\ud800","width":40}'
    seeds["surrogate-lone-low"] = b'{"text":"\\udc00x","width":40}'
    seeds["surrogate-high-high-low"] = b'{"text":"\\ud800\\ud83d\\ude00","width":40}'
    seeds["surrogate-high-then-escape"] = b'{"text":"\\ud800\\n\\u0041","width":40}'
    seeds["surrogate-pair"] = b'{"text":"\\ud83d\\ude00\\uD83D\\uDC4D","width":40}'
    seeds["surrogate-truncated"] = b'{"text":"\\ud800\\u12","width":40}'
    seeds["escapes-all"] = b'{"text":"\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u00e9 \\u20AC","width":40}'
    seeds["escape-invalid"] = b'{"text":"\\x","width":40}'
    seeds["combining-only"] = line(text="\u0301" * 200, width=30)
    seeds["zwj-only"] = line(text="\u200d" * 200, width=30)
    seeds["zwj-emoji-chain"] = line(text="\U0001F468\u200d\U0001F469\u200d\U0001F467\u200d\U0001F466" * 40, width=100)
    seeds["zwj-emoji-chain-huge-size"] = line(text="\U0001F468\u200d\U0001F469\u200d\U0001F467" * 40, width=1000, size=100000)
    seeds["bidi-controls"] = line(text="abc \u202e\u2066\u2067\u2068\u2069\u202a\u202b\u202c\u202d\u200e\u200f \u05e9\u05dc\u05d5\u05dd 123 \u0645\u0631\u062d\u0628\u0627", width=60)
    seeds["variation-selectors-tags"] = line(text="\ufe0f\ufe0e\U000E0067\U000E0062\U000E007F\U0001F3F4\U000E0067\U000E007F", width=30)
    seeds["breaks-and-tabs"] = line(text="a\tb\t\tc\nd\r\ne\rf\u2028g\u2029\n", width=30)
    seeds["private-and-unassigned"] = line(text="\ue000\U000F0000\U0010FFFF\ufffe\uffff\u0378", width=30)
    seeds["scripts-mixed"] = line(text="Hello שלום مرحبا नमस्ते สวัสดี 日本語 한국어 ∑∫ 😀", width=70)
    seeds["thai-long-word"] = line(text="สวัสดีครับยินดีต้อนรับ" * 20, width=25)
    seeds["text-3kb"] = line(text=("word " * 600).strip(), width=120, id=3)
    seeds["text-empty"] = b'{"text":"","width":10}'
    seeds["text-space-only"] = line(text="     ", width=1)
    # Structure.
    seeds["deep-255"] = b'{"text":"a","width":10,"x":' + b"[" * 254 + b"]" * 254 + b"}"
    seeds["deep-256"] = b'{"text":"a","width":10,"x":' + b"[" * 255 + b"]" * 255 + b"}"
    seeds["deep-300-objects"] = b'{"text":"a","width":10,"x":' + b'{"a":' * 300 + b"1" + b"}" * 300 + b"}"
    seeds["duplicate-text-width"] = b'{"text":"first","text":5,"width":50,"width":"x"}'
    seeds["duplicate-extras"] = b'{"id":1,"id":2,"text":"a","width":9,"id":3}'
    seeds["output-keys-as-input"] = b'{"text":"a","width":9,"height":"x","lineCount":-1,"truncated":null,"error":"no"}'
    seeds["output-keys-on-error"] = b'{"width":9,"height":1,"lineCount":2,"truncated":true}'
    seeds["extras-every-type"] = (b'{"text":"a","width":9,"n":null,"t":true,"f":false,"i":-12,"d":-1.5e3,'
                                  b'"s":"\\u00e9\\n","a":[],"o":{},"na":[1,[2,{"k":[null]}]],"no":{"a":{"b":null}},'
                                  b'"big":1e309,"neg":-1e309,"huge":123456789012345678901234567890,"tiny":4.9e-324}')
    # Echoed as sent: spaces inside containers, escaped and repeated keys, numbers no Double or Int keeps.
    seeds["extras-as-sent"] = (b'{"\\u0069d":12345678901234567890,"text":"a","width":9,"id":2,"z":-0,"e":1E+2,'
                               b'"nest":[1, {"a" : 2.50}],"s":"\\ud800\\/","\\u0068eight":1,"k\xff":"\xc3("}\n'
                               b'{"width":9,"x":1e999,"y":-0.0e-0}')
    # Styled text: spans of every attribute, overlapping, at cluster edges, and every way to get one wrong.
    seeds["spans"] = (b'{"text":"Anna: see parse_header()","width":90,"spans":[{"start":0,"end":5,"bold":true},'
                      b'{"start":10,"end":24,"mono":true,"size":22},{"start":3,"end":12,"italic":true,"bold":true}]}\n'
                      b'{"text":"e\u0301\ud83d\udc4d\ud83c\udffd","width":9,"spans":[{"start":1,"end":3,"size":30}]}\n'
                      b'{"text":"x","width":9,"spans":[{"start":0,"end":0,"bold":true},{"start":0,"end":1,"color":"red"}]}\n'
                      b'{"text":"abc","width":9,"spans":[{"start":2,"end":1}]}\n'
                      b'{"text":"abc","width":9,"spans":[{"start":0,"end":4}]}\n'
                      b'{"text":"abc","width":9,"spans":[{"start":-1,"end":1}]}\n'
                      b'{"text":"abc","width":9,"spans":[{"start":0,"end":1,"size":0}]}\n'
                      b'{"text":"abc","width":9,"spans":[{"start":0,"end":1,"size":1e999}]}\n'
                      b'{"text":"abc","width":9,"spans":[{"start":0,"end":1.5}]}\n'
                      b'{"text":"abc","width":9,"spans":[{"start":0,"end":1,"bold":1}]}\n'
                      b'{"text":"abc","width":9,"spans":[1,null,"x"]}\n'
                      b'{"text":"abc","width":9,"spans":{"start":0}}\n'
                      b'{"text":"abc","width":9,"spans":[{"start":0,"end":3,"size":10000,"mono":true}]}')
    seeds["many-keys"] = b"{" + b",".join(b'"k%d":%d' % (i, i) for i in range(300)) + b',"text":"a","width":9}'
    seeds["not-object"] = b'[{"text":"a","width":9}]\n"text"\n42\nnull\ntrue'
    seeds["trailing-garbage"] = b'{"text":"a","width":9} x\n{"text":"a","width":9}}\n{"text":"a","width":9},'
    seeds["invalid-numbers"] = b'{"text":"a","width":01}\n{"text":"a","width":1.}\n{"text":"a","width":.5}\n{"text":"a","width":+1}\n{"text":"a","width":1e}\n{"text":"a","width":-}\n{"text":"a","width":0x10}\n{"text":"a","width":NaN}\n{"text":"a","width":Infinity}'
    seeds["truncated-json"] = b'{"text":"a","width":9\n{"text":"a\n{"text\n{\n['
    seeds["literals-bad"] = b'{"text":"a","width":9,"x":tru}\n{"text":"a","width":9,"x":nul}\n{"text":"a","width":9,"x":falsey}'
    seeds["whitespace-json"] = b' \t {\r "text" : "a" ,\t"width"\t:\t9 } \t\r'
    # Lines.
    seeds["blank-lines"] = b'\n\n \n\t\n{"text":"a","width":9}\n\n'
    seeds["crlf"] = b'{"text":"a","width":9,"id":1}\r\n{"text":"b","width":9,"id":2}\r\n\r\n'
    seeds["cr-only"] = b'{"text":"a","width":9}\r{"text":"b","width":9}\r'
    seeds["no-final-newline"] = b'{"text":"a","width":9}\n{"text":"b","width":9}'
    seeds["lone-cr"] = b"\r"
    seeds["many-blank-lines"] = b"\n" * 100
    seeds["mixed-batch"] = b"\n".join([
        b'{"text":"Hello world","width":50,"id":7}', b"", b"not json",
        b'{"text":"Hello world","width":500,"id":"b","meta":{"k":[1,true,null]}}',
        b'{"text":"a b c d e f","width":10,"maxLines":2,"size":20}', b'{"text":"","width":100}',
        b'{"text":"Hello world","width":50,"id":8}']) + b"\n"
    # "breaking": the valid names ("pango", "browser", "browser-strict"), near misses and other types.
    seeds["breaking-browser-url"] = b"\n".join([
        line(text="https://example.com/a/b-c/d?e=f&g=h#i", width=10, breaking="browser"),
        line(text="a/b-c a\u2010b a\u00adb \u2014 x", width=1, breaking="browser", maxLines=2, id=1),
        line(text="a\tb\r\nc\rd\u2028e\u2029f\n", width=30, breaking="browser"),
        line(text="https://example.com/a/b-c/d", width=10, breaking="pango")])
    seeds["breaking-strict-kana"] = b"\n".join([
        line(text="\u3041\u3043\u30a1\u30a3\u30fc\u3063\u30c3\u3005\u301c\u30fb" * 8, width=50, breaking="browser-strict"),
        line(text="\u3041\u3043\u30a1\u30a3\u30fc\u3063\u30c3\u3005\u301c\u30fb" * 8, width=50, breaking="browser"),
        line(text="\u65e5\u672c\u8a9e\u3063\u3066\u30fc\u3002\u300c\u3041\u300d", width=0.001, size=0.01, breaking="browser-strict"),
        line(text="\u0301\u200d\u202e\ufe0f", width=0.001, breaking="browser-strict", maxLines=0)])
    seeds["breaking-bad-value"] = b"\n".join([
        b'{"text":"a","width":9,"breaking":"browserStrict","id":1}',
        b'{"text":"a","width":9,"breaking":"Browser","error":"x","lineCount":1}',
        b'{"text":"a","width":9,"breaking":""}',
        b'{"text":"a","width":9,"breaking":"browser\\u0000"}',
        b'{"text":"a","width":9,"breaking":"pango ","breaking":"pango"}',
        b'{"text":"a","width":9,"breaking":"browser","breaking":"chrome"}',
        b'{"text":"a","width":9,"breaking":"\\ud800"}',
        b'{"text":"a","width":9,"breaking":"brows\xffer"}',
        b'{"width":9,"breaking":"nope"}',
        b'{"text":"a","width":1e309,"breaking":"nope"}'])
    seeds["breaking-wrong-type"] = b"\n".join([
        b'{"text":"a","width":9,"breaking":1}',
        b'{"text":"a","width":9,"breaking":null,"id":null}',
        b'{"text":"a","width":9,"breaking":["browser"]}',
        b'{"text":"a","width":9,"breaking":{"browser":true}}',
        b'{"text":"a","width":9,"breaking":true}',
        b'{"text":"a","width":9,"breaking":-0}',
        b'{"text":"a","width":9,"breaking":1e309}',
        b'{"text":"a","width":9,"maxLines":1.5,"breaking":[]}',
        b'{"text":5,"width":9,"breaking":null}'])
    seeds["breaking-browser-hostile-text"] = b"\n".join([
        line(text="\u0301" * 200, width=30, breaking="browser"),
        line(text="\u200d" * 200, width=1, breaking="browser-strict"),
        line(text="\U0001F468\u200d\U0001F469\u200d\U0001F467" * 40, width=1000, size=10000, breaking="browser"),
        b'{"text":"\\ud800a\\udc00\\t\\t\\u0000-","width":0.001,"breaking":"browser"}',
        line(text="\u05e9\u05dc\u05d5\u05dd \u202e\u2066abc\u2069 \u0645\u0631\u062d\u0628\u0627 \u0e2a\u0e27\u0e31\u0e2a\u0e14\u0e35", width=15, breaking="browser"),
        line(text=("word-" * 300), width=120, breaking="browser", maxLines=2147483647)])
    return seeds


def large_seeds():
    seeds = {}
    seeds["text-1mb"] = line(text=("lorem ipsum dolor sit amet " * 40000)[:1_000_000], width=300)
    seeds["text-1mb-no-spaces"] = line(text="x" * 1_000_000, width=300)
    seeds["text-1mb-emoji-zwj"] = line(text="\U0001F468\u200d\U0001F469\u200d\U0001F467" * 90000, width=300)
    seeds["text-1mb-combining"] = line(text="a" + "\u0301" * 500000, width=300)
    seeds["lines-10000"] = b"\n".join(line(text=f"row {i} some words", width=40 + i % 200, id=i) for i in range(10000))
    seeds["deep-100k"] = b'{"text":"a","width":9,"x":' + b"[" * 100000 + b"]" * 100000 + b"}"
    seeds["keys-50k"] = b"{" + b",".join(b'"k%d":%d' % (i, i) for i in range(50000)) + b',"text":"a","width":9}'
    seeds["escapes-200k"] = b'{"text":"' + b"\\ud83d\\ude00\\n" * 20000 + b'","width":90}'
    return seeds


def font_seeds():
    from fontTools import subset
    from fontTools.ttLib import TTFont
    import io

    def subset_font(path, text, **options):
        opts = subset.Options()
        opts.layout_features = ["*"]
        for key, value in options.items():
            setattr(opts, key, value)
        font = TTFont(path, fontNumber=0)
        subsetter = subset.Subsetter(options=opts)
        subsetter.populate(text=text)
        subsetter.subset(font)
        out = io.BytesIO()
        font.save(out)
        return out.getvalue()

    fonts = os.path.join(ROOT, "Fonts")
    seeds = {}
    seeds["notosans-subset"] = subset_font(os.path.join(fonts, "NotoSans-Regular.ttf"), "Hello, world — fi ffi 123")
    seeds["hebrew-subset"] = subset_font(os.path.join(fonts, "NotoSansHebrew-Regular.ttf"), "שלום עולם")
    seeds["arabic-subset"] = subset_font(os.path.join(fonts, "NotoSansArabic-Regular.ttf"), "مرحبا بالعالم")
    seeds["thai-subset"] = subset_font(os.path.join(fonts, "NotoSansThai-Regular.ttf"), "สวัสดีครับ")
    seeds["devanagari-subset"] = subset_font(os.path.join(fonts, "NotoSansDevanagari-Regular.ttf"), "नमस्ते")
    seeds["emoji-subset"] = subset_font(os.path.join(fonts, "NotoColorEmoji.ttf"), "😀👍🏽")
    whole = open(os.path.join(fonts, "NotoSansHebrew-Regular.ttf"), "rb").read()
    seeds["hebrew-whole"] = whole
    for n in [12, 100, 1024, 4096]:
        seeds[f"hebrew-first-{n}"] = whole[:n]
    collection = open(os.path.join(ROOT, "Tests", "Fixtures", "HebrewThai.ttc"), "rb").read()
    seeds["collection-first-4096"] = collection[:4096]
    seeds["empty"] = b""
    seeds["ttcf-header-only"] = b"ttcf\x00\x01\x00\x00\x00\x00\x00\x02\x00\x00\x00\x14\x00\x00\x00\x14"
    seeds["otto-header-only"] = b"OTTO\x00\x00\x00\x80\x00\x03\x00\x00"
    seeds["woff-magic"] = b"wOFF\x00\x01\x00\x00" + b"\x00" * 40
    return seeds


def frame_seeds():
    def request(method=b"POST", target=b"/v1/measure", version=b"HTTP/1.1", fields=(), body=b"", eol=b"\r\n"):
        head = method + b" " + target + b" " + version + eol + b"".join(f + eol for f in fields) + eol
        return head + body

    body = b'[{"text":"Hello, world","width":50},{"text":"a b c","width":10}]'
    measure = request(fields=[b"Host: localhost:8080", b"Content-Type: application/json",
                              b"Content-Length: %d" % len(body)], body=body)
    get = request(b"GET", b"/healthz", fields=[b"Host: x"])
    seeds = {}
    seeds["measure-with-body"] = measure
    seeds["measure-shouted-names-tab"] = request(fields=[b"HOST: x", b"CONTENT-length:\t2", b"Connection: Keep-Alive"], body=b"[]")
    seeds["pipelined-measure-get-measure"] = measure + get + measure + request(b"GET", b"/metrics", fields=[b"Host: x"])
    seeds["pipelined-then-close"] = measure + request(b"GET", b"/", fields=[b"Host: x", b"Connection: close"]) + measure
    seeds["get"] = get
    seeds["get-query-odd-target"] = request(b"GET", b"/~user/(x)*!$'+,;=:@%20?a=b&c", fields=[b"Host: x", b"Accept: */*"])
    seeds["every-method"] = b"".join(request(m, b"/v1/measure", fields=[b"Host: x", b"Content-Length: 1"], body=b"x")
                                     for m in [b"GET", b"HEAD", b"PUT", b"DELETE", b"OPTIONS", b"PATCH"])
    seeds["body-still-coming"] = request(fields=[b"Host: x", b"Content-Length: 500"], body=b'[{"text":"a"')
    seeds["head-not-whole"] = b"POST /v1/measure HTTP/1.1\r\nHost: x\r\nContent-Len"
    seeds["chunked"] = request(fields=[b"Host: x", b"Transfer-Encoding: chunked"], body=b"2\r\n[]\r\n0\r\n\r\n") + get
    seeds["chunked-and-length"] = request(fields=[b"Host: x", b"Transfer-Encoding: chunked", b"Content-Length: 2"],
                                          body=b"2\r\n[]\r\n0\r\n\r\n")
    for name, value in [("plus", b"+2"), ("list", b"2, 2"), ("space-after", b"2 "), ("tab-after", b"2\t"),
                        ("leading-zeros", b"0002"), ("empty", b""), ("negative", b"-2"), ("hex", b"0x2"),
                        ("over-limit", b"1001"), ("ten-digits", b"1234567890"), ("huge", b"99999999999999999999")]:
        seeds[f"content-length-{name}"] = request(fields=[b"Host: x", b"Content-Length: " + value], body=b"[]") + get
    seeds["content-length-twice-same"] = request(fields=[b"Host: x", b"Content-Length: 2", b"Content-Length: 2"], body=b"[]")
    seeds["content-length-twice-different"] = request(fields=[b"Host: x", b"Content-Length: 2", b"Content-Length: 3"], body=b"[]x")
    seeds["obs-fold"] = request(fields=[b"Host: x", b"X-Long: a", b" folded", b"Content-Length: 2"], body=b"[]")
    seeds["obs-fold-content-length"] = request(fields=[b"Host: x", b"Content-Length:", b" 2"], body=b"[]")
    seeds["bare-lf"] = request(fields=[b"Host: x", b"Content-Length: 2"], body=b"[]", eol=b"\n")
    seeds["bare-lf-in-header"] = b"POST /v1/measure HTTP/1.1\r\nHost: x\nContent-Length: 2\r\n\r\n[]"
    seeds["bare-cr"] = b"POST /v1/measure HTTP/1.1\rHost: x\r\nContent-Length: 2\r\n\r\n[]"
    seeds["http-1.0"] = request(version=b"HTTP/1.0", fields=[b"Host: x", b"Content-Length: 2"], body=b"[]")
    seeds["http-1.0-keep-alive"] = request(version=b"HTTP/1.0", fields=[b"Connection: keep-alive", b"Content-Length: 2"], body=b"[]") + get
    seeds["http-2.0-version"] = request(version=b"HTTP/2.0", fields=[b"Host: x"])
    seeds["empty-line-first"] = b"\r\n" + get
    seeds["lowercase-method"] = request(b"post", fields=[b"Host: x", b"Content-Length: 2"], body=b"[]")
    seeds["connect"] = request(b"CONNECT", b"x:443", fields=[b"Host: x:443"])
    seeds["absolute-target"] = request(target=b"http://x/v1/measure", fields=[b"Host: x", b"Content-Length: 2"], body=b"[]")
    seeds["space-before-colon"] = request(fields=[b"Host : x", b"Content-Length: 2"], body=b"[]")
    seeds["non-ascii-value"] = request(fields=[b"Host: x", b"X-Name: \xc3\xa9\x80", b"Content-Length: 2"], body=b"[]")
    seeds["control-in-value"] = request(fields=[b"Host: x\x01", b"Content-Length: 2"], body=b"[]")
    seeds["expect-continue"] = request(fields=[b"Host: x", b"Expect: 100-continue", b"Content-Length: 2"], body=b"[]")
    seeds["upgrade"] = request(fields=[b"Host: x", b"Upgrade: websocket", b"Connection: upgrade", b"Content-Length: 2"], body=b"[]")
    seeds["proxy-connection"] = request(fields=[b"Host: x", b"Proxy-Connection: close", b"Content-Length: 2"], body=b"[]") + get
    seeds["connection-lists"] = (request(fields=[b"Host: x", b"Connection: keep-alive, close", b"Content-Length: 2"], body=b"[]")
                                 + request(fields=[b"Host: x", b"Connection: keep-alive", b"Connection: keep-alive",
                                                   b"Content-Length: 2"], body=b"[]"))
    seeds["hosts-none-two"] = (request(fields=[b"Content-Length: 2"], body=b"[]")
                               + request(fields=[b"Host: x", b"host: y", b"Content-Length: 2"], body=b"[]"))
    seeds["many-headers"] = request(fields=[b"Host: x"] + [b"X-%d: v" % i for i in range(70)] + [b"Content-Length: 2"], body=b"[]")
    return seeds


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("batch", "large", "font", "frame"):
        sys.exit(__doc__)
    kind, folder = sys.argv[1], sys.argv[2]
    seeds = {"batch": batch_seeds, "large": large_seeds, "font": font_seeds, "frame": frame_seeds}[kind]()
    os.makedirs(folder, exist_ok=True)
    for name, data in seeds.items():
        with open(os.path.join(folder, name.replace("/", "_")), "wb") as f:
            f.write(data)
    print(f"{len(seeds)} {kind} seeds in {folder} ({sum(map(len, seeds.values()))} bytes)")


if __name__ == "__main__":
    main()
