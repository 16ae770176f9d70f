module github.com/sumacdev/sumac/bench/peers

go 1.26.0

require github.com/sumacdev/sumac v0.0.0

replace github.com/sumacdev/sumac => ../..
