module github.com/sumacdev/sumac

go 1.26
