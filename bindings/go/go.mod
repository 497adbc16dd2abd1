module cuabi

go 1.24
