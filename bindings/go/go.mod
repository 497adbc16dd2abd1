module cuabi

go 1.19
