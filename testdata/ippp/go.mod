module example.com/ippp

go 1.25
