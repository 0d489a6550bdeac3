// Fixed keys for the fuzz targets: the same keys as TestVectors/fuzz/keys/*.pem (generated once with
// `openssl genpkey`; test-only), from which TestVectors/fuzz/make_seeds.py signs the token seeds.
enum FuzzKeys {
    static let rsa = """
        -----BEGIN PRIVATE KEY-----
        MIIEvgIBADANBgkqhkiG9w0BAQEFAASCBKgwggSkAgEAAoIBAQDL9x+qNZlttSbD
        gz38U04zfvbr/cj9fL5dqIQ5xfbLvs82ggjietp5yk68ScnUbm+daKySalywSfML
        WYGDjHETgv1+CIGULz5DMC4StHCQw5Whaqi1gsWFGE7xJpXpXRf1rWDLWEJ5DMVx
        j0r163t1ryVhapMPHN3vkSk75MgkxxIvHWQcWyIYmFFQf1odfnGneHl/3nehxruU
        +hi4t9XQdXmz5BdTF1Km2/EIH8sNwu82lQ4hhM81H41BqwyF/NTGqfECOGbiW+ee
        OoBdaoS6xs7m1UPOFUujeiEPLhx3UTfTXOvZ6MAdbbIVA/19f1rU4k5uRZvKxmWN
        qStSI7Z1AgMBAAECggEAIMH0SnRoS1fcPWtPIb7JYPjjtFwikx+dPVKKxfKW4/sl
        sXXp8mHTw9qrkY7yRNVlxKyihrNhZojB6ZE6/UMph/4yMzMviHqb79OFmshzCbT3
        y6BjLx+tFGamixFs4zlp1zG8yXvH1UQpU8c1PVDQF8ME6GPi8Xrr5AV2z2E7ibhL
        qQVtRZwgADuLHIpWJlDSeRVxe7DJD+BnKNx4rN9MAxILvs4SG4KeK9GVG+XPQWHW
        hzj7B5y3YwQMWFtk4iiaUZC8dCllfmqvLwjbJQ6KpiBauJ6rGhRXE9sD/yX29G5y
        E767U6ALYtKFf1y9h08/N70UQJmwpwCxuiHV4jhJsQKBgQDu6kkFhCNRdiiq/5nh
        0AV6MEUyBJ02YijLHXAtWRcqks5833ZiAx/Jn8XXjIcPvm0BdkU3Jp5C7dDoaWYC
        6xwaw7v3hrapvv2teE4Uvs34Gn36hQevj+Y/KcsWPp4+pejh39PaldqLGBXVDwq4
        pUD1oQ6sxpfByQA1cudON5p6nQKBgQDajQbnO+tCV8E0aiGvsSgNij8S3rZ0ta0d
        hE33EGM49Jy9jEIBAyQKNwTCghrNKFIyjm1u8OLZ3zLuuY62/pLWGWCaZgWlEGSG
        KS6CwHaKl1V+LHrhGBKjDzycgs5MWfDdzwhtYFUz0fcp9+wKXIxPUCeKzNtEPYAT
        EYNw8WEXuQKBgQCHr38xJs54IUcPdoKKgH3b2zYxJfWzQSQx1tIyrvo9L4sd2Dt/
        ho6zD45o0GKUSm3V+rlsjP4svKt8kv9ggO5BNRC3j0aGOPYRYtXValfHpCQP9yVa
        S7tT/ARe6cktg0Qzo87JwXmQrWkYy6YnH5M47PNMpKzjXahEsrEy9tlA8QKBgQCg
        MUC/Gw9dCH+oUKayZfMKwatrxG0ObOAgQ4r2Lj/cTofY88apgUjYZ+2ION82Q3jE
        b9tMtypAMjbd/oraHQ05+03wvhkjHTnhkKvz0OjSuwxCOI41EXUPqipuOf7GviIs
        IwV1TmgFXMCDNaMBEUcTF5h0R6XshfurfmnOzk6xmQKBgGlumqGuVNdG1gv8foPU
        W+ihfQ2zPc2NRM7rhvpMUy3UqUgt6N9B4LlZRNwLvA5qQ1f+D0V3zHW4zjtc001s
        4+HxdUeCRz5V4Wksu5Aq+jgLPCdmvI1cs+6zUB7WLsJAO2WDcBmPDiL6WhRrrgjH
        wdZMglyWn0rD6MUQMnVqOVi7
        -----END PRIVATE KEY-----
        """
    static let p256 = """
        -----BEGIN PRIVATE KEY-----
        MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgPqWgqX4pxzXHn2Zn
        dpMlehSz3Qk/kXT7/gVIc2AecpehRANCAAScZ2orqJYGzCEMDFtusWnuwsVYdZcb
        9PdMrTvFFFw5bp+yw/EbCtcw+oCiNbUiZrcMKiz3YvzMV7IHkg0IJP5U
        -----END PRIVATE KEY-----
        """
    static let p384 = """
        -----BEGIN PRIVATE KEY-----
        MIG2AgEAMBAGByqGSM49AgEGBSuBBAAiBIGeMIGbAgEBBDAEw0ANhYiI/tegEdvg
        gnHrqrBV04/Xlt9QgyORVTxduOmNOPxSVZqaIEZvC18hmVOhZANiAAQikpRwJWZH
        2h7sQA3/n7782mCq4s/D9rby3GJPlZXwYEmevOEPZbn9sL38dIRNYIVRvNybuPM6
        4GSFujDm6HLjdAuyi7uSDlrfUpoZfR4ySQ5iUjxCVLHrucXF98ZTG4M=
        -----END PRIVATE KEY-----
        """
    static let p521 = """
        -----BEGIN PRIVATE KEY-----
        MIHuAgEAMBAGByqGSM49AgEGBSuBBAAjBIHWMIHTAgEBBEIA7NRuiDQcmOjqecUr
        TdAEStHQ9mohsP7K/qttCVcWWGvuxSG7g6CNnMRlqRYO3KrdW/GMdgm8L9RJVnjR
        XVQhR3ihgYkDgYYABABAOZGZ+gkXKCcFhsbo34gsAzZrPJSLroeAjqisXvhfhRTH
        QmapaFfLLQuVrNPcG6b6FFTFCdEv5MhSLrZiJpMLzAHh0srG8/xCDOdQdpXrPFjK
        YlXV4PJAsooQWir6k/NEYr2t8wol7ndqNC+nB4nlTD8gSOYKtiuT32HZXJzuCx7D
        3w==
        -----END PRIVATE KEY-----
        """
    static let ed = """
        -----BEGIN PRIVATE KEY-----
        MC4CAQAwBQYDK2VwBCIEIJ4zEx6n92kxwqrQNS5owhFSOn0Qgn0flo6gyKnHqxNM
        -----END PRIVATE KEY-----
        """
    /// A 64-byte HMAC secret (long enough for HS256/384/512).
    static let secret: [UInt8] = Array("fuzz-secret-0123456789abcdef-0123456789abcdef-0123456789abcdef!!".utf8)
}
