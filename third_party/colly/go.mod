module github.com/gocolly/colly/v2

go 1.24.0

toolchain go1.24.9

require (
	github.com/PuerkitoBio/goquery v1.11.0
	github.com/antchfx/htmlquery v1.3.5
	github.com/antchfx/xmlquery v1.5.0
	github.com/gobwas/glob v0.2.3
	github.com/gocolly/colly v1.2.0
	github.com/jawher/mow.cli v1.1.0
	github.com/kennygrant/sanitize v1.2.4
	github.com/nlnwa/whatwg-url v0.6.2
	github.com/saintfish/chardet v0.0.0-20230101081208-5e3ef4b5456d
	github.com/temoto/robotstxt v1.1.2
	golang.org/x/net v0.47.0
	google.golang.org/appengine v1.6.8
)

require (
	github.com/andybalholm/cascadia v1.3.3 // indirect
	github.com/antchfx/xpath v1.3.5 // indirect
	github.com/bits-and-blooms/bitset v1.24.4 // indirect
	github.com/golang/groupcache v0.0.0-20241129210726-2c02b8208cf8 // indirect
	github.com/golang/protobuf v1.5.4 // indirect
	golang.org/x/text v0.31.0 // indirect
	google.golang.org/protobuf v1.36.10 // indirect
)
