# scalify_warnings(TARGET): the project's warning set on one target; errors when SCALIFY_WERROR.
function(scalify_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow=local
                                           -Wnon-virtual-dtor -Wimplicit-fallthrough)
  if(SCALIFY_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()
