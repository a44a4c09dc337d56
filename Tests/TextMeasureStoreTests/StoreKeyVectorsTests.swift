import Testing
import TextMeasure
@testable import TextMeasureStore

/// Keys and digests as the store writes them, pinned to their bytes: a store file's rows are found by
/// these keys, so any change of how they are hashed (the SHA-256 implementation, the encoding) would
/// turn every stored height into a miss. Texts of 0 to 400 bytes cover one to eight blocks after the
/// 64-byte prefix, and the block edges (55, 56, 64 bytes with the 8-byte length).
@Suite struct StoreKeyVectorsTests {
    static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }

    static let fonts = (0..<32).map { UInt8($0 &* 7 &+ 3) }

    static let texts = ["", "Hello, world!", String(repeating: "a", count: 47), String(repeating: "b", count: 48),
                        String(repeating: "c", count: 56), "你好，世界 — مرحبا بالعالم 👋 " + String(repeating: "é", count: 170)]

    static let styles = [TextStyle(size: 17), TextStyle(size: 15.5, lineHeight: .fixed(20), maxLines: 3, breaking: .browser),
                         TextStyle(size: 12, lineHeight: .multiple(1.25), breaking: .browserStrict)]

    @Test func keysKeepTheirBytes() {
        var keys: [String] = []
        for style in Self.styles {
            for text in Self.texts {
                keys.append(Self.hex(StoreKey.key(for: MeasureRequest(text: text, style: style, width: 100), fonts: Self.fonts,
                                                  layoutVersion: 7)))
            }
        }
        // Made by the hand-written SHA-256 the store used before swift-crypto; the first two checked
        // against Python's hashlib as well.
        #expect(keys == [
            "ebf6fd636a0ba395dbe8e56e9fa027b1961185005bf5402d79852f2b634818a8",
            "94af14094ca5dc0bddb2a2493ec54656326c6016acf65be1b4fc5452fb1228f9",
            "d0f66be31c84a72d629a07af575d471225d7c5696c61b3147056f718cb68441f",
            "96e9c14d73b70f101be6b7258fbb879d601828ebd3bf478df039d240e0a5fa9f",
            "4b2c4db5f473231eff48a54d9fd6c7f685493e35abf8b5b4813526d839397eda",
            "64a40cad14974c456399de7a70eca377bb99c709c953722ece732f6f9e421188",
            "2680000d24359e071fea6eaa354e9b437e2fc509567d8372a07277d59fee3e4e",
            "23552bd3c131dc4e948a616224bc1d322696026810394cfa7ffe7bab6dd63731",
            "3c07676b61a1cb4fd3f9aecd48eef1332128b4a9c77f303ade2a6a95f3f20b48",
            "0c8a5c9cb5e4654c86c61130515afe7c98d6988bb381d62540f68465343c12b3",
            "a5b1ae95ff16e6368a38df95c673010fecd9d505b71f95ca079cbfb9202ce0b6",
            "614ea24cbdaf198b887eff1815d01caaeb455c8692412a02b9cc24e2a0963c72",
            "9422173fd659a41bc78742e45b7d2d2c06779819b791f5a6a19c3cb132254146",
            "d5f6a0f326daf66801ec466cac246307d68ae612df42f6a5f1087b488a364aac",
            "50665bf734cfc60b7e30a467f51e815c4f88519b572ee0dc8c8cb98e768a0ee1",
            "d65fbfae55d123294d746bf8c54a52bc216c4be1bd6468cb34ae5e2ac47f5baf",
            "6d387f3d8c6ed433852ff5db4f38a8828a1ad023a46412ce3c72cf1f1ab0c14b",
            "3a00f5af4403d8a70337374d9375e11b46b5b587ac9f6fafb50bbdfeb0a383e3",
        ])
        let cascade = FontDigests.digest(ofCascade: [(Self.fonts, 0), (Array(Self.fonts.reversed()), 2)])
        #expect(Self.hex(cascade) == "456eb2c56fbce446b7a491a9e75ebd44661503958f754c7e8e92e2fb34d87a05")
    }
}
