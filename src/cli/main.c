#include <stdio.h>

int main(void)
{
    printf("ddbpipe %s\n", DDB_VERSION);
    return 0;
}
