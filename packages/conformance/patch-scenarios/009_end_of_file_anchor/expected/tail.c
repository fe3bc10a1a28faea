}
return 0;
}
return 1;
}
